# serve: 1 instance of 8 chips each
vllm serve Qwen/Qwen3-30B-A3B \
    --tensor-parallel-size 1 \
    --data-parallel-size 8 \
    --enable-expert-parallel \
    --max-num-seqs 128 \
    --max-num-batched-tokens 8192 \
    --max-model-len 8448 \
    --gpu-memory-utilization 0.9
# note: --max-num-seqs is per attention-DP rank: 1024 sequences over 8 ranks
# note: KV cache assumed: bf16, the engine's default for this checkpoint
