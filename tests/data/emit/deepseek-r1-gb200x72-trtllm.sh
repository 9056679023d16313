# serve: 4 instances of 18 chips each, behind a router
srun -N 5 --ntasks 18 --ntasks-per-node 4 --mpi=pmix trtllm-llmapi-launch trtllm-serve deepseek-ai/DeepSeek-R1 \
    --tp_size 18 \
    --ep_size 18 \
    --max_batch_size 911 \
    --max_num_tokens 8192 \
    --max_seq_len 2304 \
    --kv_cache_free_gpu_memory_fraction 0.9 \
    --extra_llm_api_options serve-llm-api-options.yaml
# serve-llm-api-options.yaml
enable_attention_dp: true
kv_cache_config:
  dtype: fp8
# note: --max_batch_size is per attention-DP rank: 16384 sequences over 18 ranks
# note: serve: one instance spans 5 nodes of 4 chips: launch it once, under srun (or mpirun) across the nodes
# note: KV cache assumed: fp8, the engine's default for this checkpoint
