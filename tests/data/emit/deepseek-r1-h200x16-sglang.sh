# serve: 1 instance of 16 chips each
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 \
    --tp-size 16 \
    --dp-size 16 \
    --enable-dp-attention \
    --ep-size 16 \
    --kv-cache-dtype fp8_e4m3 \
    --max-running-requests 4096 \
    --chunked-prefill-size 8192 \
    --context-length 2304 \
    --mem-fraction-static 0.85 \
    --nnodes 2 \
    --node-rank $NODE_RANK \
    --dist-init-addr $HEAD_IP:5000
# note: serve: one instance spans 2 nodes of 8 chips: run the command on each node with NODE_RANK 0 to 1 and HEAD_IP the first node's address
# note: KV cache assumed: fp8, the engine's default for this checkpoint
