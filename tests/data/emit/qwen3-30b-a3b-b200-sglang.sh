# serve: 1 instance of 8 chips each
python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B \
    --tp-size 8 \
    --dp-size 8 \
    --enable-dp-attention \
    --ep-size 8 \
    --max-running-requests 1024 \
    --chunked-prefill-size 8192 \
    --context-length 8448 \
    --mem-fraction-static 0.85
# note: KV cache assumed: bf16, the engine's default for this checkpoint
