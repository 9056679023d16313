# prefill: 1 instance of 8 chips each
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct \
    --tp-size 8 \
    --chunked-prefill-size 8192 \
    --context-length 2304 \
    --mem-fraction-static 0.85
# decode: 2 instances of 8 chips each, behind a router
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct \
    --tp-size 4 \
    --pp-size 2 \
    --max-running-requests 512 \
    --chunked-prefill-size 8192 \
    --context-length 2304 \
    --mem-fraction-static 0.85
# note: disaggregated: connect the pools with the engine's prefill/decode transfer (its KV connector), configured separately
# note: KV cache assumed: bf16, the engine's default for this checkpoint
