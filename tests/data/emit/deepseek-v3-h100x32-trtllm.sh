# serve: 1 instance of 32 chips each
srun -N 4 --ntasks 32 --ntasks-per-node 8 --mpi=pmix trtllm-llmapi-launch trtllm-serve deepseek-ai/DeepSeek-V3 \
    --tp_size 16 \
    --pp_size 2 \
    --ep_size 16 \
    --max_batch_size 1024 \
    --max_num_tokens 8192 \
    --max_seq_len 2304 \
    --kv_cache_free_gpu_memory_fraction 0.9 \
    --extra_llm_api_options serve-llm-api-options.yaml
# serve-llm-api-options.yaml
enable_attention_dp: true
kv_cache_config:
  dtype: fp8
# note: --max_batch_size is per attention-DP rank: 16384 sequences over 16 ranks
# note: serve: one instance spans 4 nodes of 8 chips: launch it once, under srun (or mpirun) across the nodes
# note: KV cache assumed: fp8, the engine's default for this checkpoint
