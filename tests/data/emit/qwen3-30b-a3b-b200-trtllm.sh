# serve: 1 instance of 8 chips each
trtllm-serve Qwen/Qwen3-30B-A3B \
    --tp_size 8 \
    --ep_size 8 \
    --max_batch_size 128 \
    --max_num_tokens 8192 \
    --max_seq_len 8448 \
    --kv_cache_free_gpu_memory_fraction 0.9 \
    --extra_llm_api_options serve-llm-api-options.yaml
# serve-llm-api-options.yaml
enable_attention_dp: true
# note: --max_batch_size is per attention-DP rank: 1024 sequences over 8 ranks
# note: KV cache assumed: bf16, the engine's default for this checkpoint
