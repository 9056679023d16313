# serve: 1 instance of 8 chips each
vllm serve Qwen/Qwen3-30B-A3B \
    --tensor-parallel-size 1 \
    --data-parallel-size 8 \
    --enable-expert-parallel \
    --max-num-seqs 1024 \
    --max-num-batched-tokens 8192 \
    --gpu-memory-utilization 0.9
