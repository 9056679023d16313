# serve: 1 instance of 16 chips each
vllm serve meta-llama/Meta-Llama-3.1-405B \
    --tensor-parallel-size 8 \
    --pipeline-parallel-size 2 \
    --max-num-seqs 256 \
    --max-num-batched-tokens 8192 \
    --max-model-len 2304 \
    --gpu-memory-utilization 0.9 \
    --distributed-executor-backend ray
# note: serve: a tensor or pipeline group spans 2 nodes of 8 chips: start a Ray cluster over them first (ray start --head, then ray start --address on the others)
# note: KV cache assumed: bf16, the engine's default for this checkpoint
