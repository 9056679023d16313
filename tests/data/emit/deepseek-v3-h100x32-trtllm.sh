# serve: 2 instances of 16 chips each, behind a router
trtllm-serve deepseek-ai/DeepSeek-V3 \
    --tp_size 16 \
    --ep_size 16 \
    --max_batch_size 2048 \
    --max_num_tokens 8192 \
    --kv_cache_free_gpu_memory_fraction 0.9 \
    --extra_llm_api_options serve-llm-api-options.yaml
# serve-llm-api-options.yaml
enable_attention_dp: true
kv_cache_config:
  dtype: fp8
