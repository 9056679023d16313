// The HuggingFace model families (config_reader.hpp): Llama, Mistral/Mixtral, Qwen2/3 dense and
// MoE, Qwen3-Next, gpt-oss, Gemma 3, Llama 4, llmecon's own model_types, and the dispatch by
// model_type (DeepSeek's family lives in config.cpp).
#include <algorithm>
#include <cmath>

#include "config_reader.hpp"
#include "units/json_text.hpp"

namespace llmecon::config_internal {
namespace {

// Gemma 3: Gemma3TextConfig's defaults for fields the short config omits, five sliding-window
// layers to each global one.
Result<ModelSpec> parse_gemma3(const JsonValue& body, const std::string& origin, const std::string& prefix,
                               ModelSpec m) {
  ModelSpec g = std::move(m);
  JsonValue filled = body;
  if (!filled.contains("vocab_size")) filled["vocab_size"] = 262208;
  if (!filled.contains("tie_word_embeddings")) filled["tie_word_embeddings"] = true;
  if (!filled.contains("max_position_embeddings")) filled["max_position_embeddings"] = 131072;
  Cfg gc(filled, origin, prefix);
  TRY_STATUS(read_gqa(gc, g));
  TRY_STATUS(set_dense_ffn(gc, g, "intermediate_size"));
  TRY(window, gc.integer_or("sliding_window", 4096));
  TRY(pattern, gc.integer_or("sliding_window_pattern", 6));
  for (std::size_t i = 0; i < g.layers.size(); ++i) {
    if ((i + 1) % static_cast<std::size_t>(pattern) != 0) {
      g.layers[i].mixer = Mixer::kSliding;
      g.layers[i].window = window;
    }
  }
  g.attn.qk_norm = true;
  g.attn.qkv_bias = g.attn.o_bias = false;
  g.norms_per_layer = 4;  // pre- and post-norms around attention and MLP
  return g;
}

// Llama, Mistral, Qwen 2/3 and their MoE variants, Mixtral: GQA with their biases, norms, sliding
// windows and experts.
Result<ModelSpec> parse_llama_like(const Cfg& c, const std::string& type, ModelSpec m) {
  TRY(mlp_bias, c.boolean_or("mlp_bias", false));
  m.mlp_bias = mlp_bias;
  if (type == "qwen2" || type == "qwen2_moe") {
    m.attn.qkv_bias = true;  // Qwen2 has q/k/v biases and no o bias
    m.attn.o_bias = false;
  }
  if (type == "qwen3" || type == "qwen3_moe") m.attn.qk_norm = true;
  // Sliding window: Mistral applies it to every layer; Qwen only when use_sliding_window.
  bool sliding = c.has("sliding_window");
  if (type.rfind("qwen", 0) == 0) {
    TRY(use, c.boolean_or("use_sliding_window", false));
    sliding = use;
  }
  if (sliding) {
    TRY(w, c.integer("sliding_window"));
    for (auto& l : m.layers) {
      l.mixer = Mixer::kSliding;
      l.window = w;
    }
  }
  if (type == "mixtral") {
    TRY(e, c.integer("num_local_experts"));
    TRY(k, c.integer("num_experts_per_tok"));
    TRY(fe, c.integer("intermediate_size"));
    m.moe = Moe{e, k, fe, 0, false, false, false, 0};
    for (auto& l : m.layers) l.moe = true;
    return m;
  }
  if (type == "qwen2_moe" || type == "qwen3_moe") {
    TRY(e, c.integer("num_experts"));
    TRY(k, c.integer("num_experts_per_tok"));
    TRY(fe, c.integer("moe_intermediate_size"));
    TRY(shared, c.count_or("shared_expert_intermediate_size", 0));
    TRY(step, c.integer_or("decoder_sparse_step", 1));
    TRY(inter, c.integer("intermediate_size"));
    m.moe = Moe{e, k, fe, shared, shared > 0, false, false, 0};
    TRY(mlp_only, c.int_list("mlp_only_layers", 0, static_cast<int>(m.layers.size()) - 1));
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
      const bool only = std::find(mlp_only.begin(), mlp_only.end(), static_cast<int>(i)) != mlp_only.end();
      m.layers[i].moe = !only && (i + 1) % static_cast<std::size_t>(step) == 0;
      m.layers[i].dense_ffn = m.layers[i].moe ? 0 : inter;
    }
    return m;
  }
  TRY_STATUS(set_dense_ffn(c, m, "intermediate_size"));
  return m;
}

// Qwen3-Next: gated linear attention in three of four layers, every layer MoE.
Result<ModelSpec> parse_qwen3_next(const Cfg& c, ModelSpec m) {
  TRY(e, c.integer("num_experts"));
  TRY(k, c.integer("num_experts_per_tok"));
  TRY(fe, c.integer("moe_intermediate_size"));
  TRY(shared, c.count_or("shared_expert_intermediate_size", 0));
  TRY(interval, c.integer_or("full_attention_interval", 4));
  TRY(nk, c.integer("linear_num_key_heads"));
  TRY(nv, c.integer("linear_num_value_heads"));
  TRY(dk, c.integer("linear_key_head_dim"));
  TRY(dv, c.integer("linear_value_head_dim"));
  TRY(kern, c.integer_or("linear_conv_kernel_dim", 4));
  m.linear = LinearAttention{nk, nv, dk, dv, kern};
  m.moe = Moe{e, k, fe, shared, shared > 0, false, false, 0};
  m.attn.qk_norm = true;
  m.attn.gated_q = true;
  m.attn.qkv_bias = m.attn.o_bias = false;
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    m.layers[i].moe = true;
    if ((i + 1) % static_cast<std::size_t>(interval) != 0) m.layers[i].mixer = Mixer::kLinear;
  }
  return m;
}

// gpt-oss: MXFP4 experts, attention sinks, alternating sliding and full attention.
Result<ModelSpec> parse_gpt_oss(const Cfg& c, const std::string& origin, ModelSpec m) {
  TRY(e, c.integer("num_local_experts"));
  TRY(k, c.integer_or("num_experts_per_tok", 4));
  TRY(fe, c.integer("intermediate_size"));
  TRY(window, c.integer("sliding_window"));
  m.moe = Moe{e, k, fe, 0, false, true, true, 0};
  m.attn.sinks = true;
  // Attention, router, embeddings stay bf16; only expert weights are MXFP4.
  if (m.native_weight_dtype == DType::kFp4) {
    m.native_weight_dtype = DType::kBf16;
    m.native_expert_dtype = DType::kFp4;
  }
  const JsonValue& types = c.raw().contains("layer_types") ? c.raw()["layer_types"] : JsonValue();
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    m.layers[i].moe = true;
    bool slide = i % 2 == 0;
    if (types.is_array()) {
      if (types.size() != m.layers.size()) {
        return Error{
            origin, c.field("layer_types"),
            "has " + std::to_string(types.size()) + " entries for " + std::to_string(m.layers.size()) + " layers",
            "one entry per layer"};
      }
      if (!types[i].is_string() || (types[i] != "sliding_attention" && types[i] != "full_attention")) {
        return Error{origin, c.field("layer_types"), "entry " + std::to_string(i) + " is " + json_text(types[i]),
                     "each entry is \"sliding_attention\" or \"full_attention\""};
      }
      slide = types[i] == "sliding_attention";
    }
    if (slide) {
      m.layers[i].mixer = Mixer::kSliding;
      m.layers[i].window = window;
    }
  }
  return m;
}

// Llama 4: interleaved MoE and dense layers, chunked attention with a global NoPE layer in four.
Result<ModelSpec> parse_llama4(const Cfg& c, ModelSpec m) {
  TRY(e, c.integer("num_local_experts"));
  TRY(k, c.integer_or("num_experts_per_tok", 1));
  TRY(fe, c.integer("intermediate_size"));
  TRY(dense_ffn, c.integer_or("intermediate_size_mlp", fe));
  TRY(step, c.integer_or("interleave_moe_layer_step", 1));
  TRY(chunk, c.integer_or("attention_chunk_size", 8192));
  m.moe = Moe{e, k, fe, fe, false, false, false, 0};
  TRY(nope, c.int_list("no_rope_layers", 0, 1));
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    auto& l = m.layers[i];
    l.moe = (i + 1) % static_cast<std::size_t>(step) == 0;
    l.dense_ffn = l.moe ? 0 : dense_ffn;
    // no_rope_layers lists 1 for RoPE (chunked) layers and 0 for NoPE (global) layers; when
    // empty, every 4th layer is a global NoPE layer.
    const bool global = nope.size() == m.layers.size() ? nope[i] == 0 : (i + 1) % 4 == 0;
    if (!global) {
      l.mixer = Mixer::kChunked;
      l.window = chunk;
    }
  }
  return m;
}

// llmecon's own model_types for models without a public config.json (nullopt: not one of them).
std::optional<Result<ModelSpec>> parse_own_type(const Cfg& c, const std::string& type, ModelSpec m) {
  if (type == "palm") {
    m.tied_embeddings = true;
    m.attn.qkv_bias = m.attn.o_bias = false;
    TRY_STATUS(set_dense_ffn(c, m, "intermediate_size"));
    m.norms_per_layer = 1;  // parallel block: one LayerNorm feeds attention and MLP
    return m;
  }
  if (type == "gpt3") {
    m.mlp = MlpKind::kPlain;
    m.mlp_bias = true;
    m.norm_bias = true;
    TRY(pos, c.integer_or("max_position_embeddings", 2048));
    m.learned_positions = pos;
    TRY_STATUS(set_dense_ffn(c, m, "intermediate_size"));
    return m;
  }
  if (type == "chinchilla") {
    m.mlp = MlpKind::kPlain;
    m.attn.rel_pos_proj = true;
    TRY_STATUS(set_dense_ffn(c, m, "intermediate_size"));
    return m;
  }
  return std::nullopt;
}

}  // namespace

Result<ModelSpec> parse_hf(const JsonValue& root, const std::string& origin, ModelSpec m) {
  // Multimodal wrappers keep the language model under text_config.
  const JsonValue* body = &root;
  std::string prefix;
  if (root.contains("text_config") && root["text_config"].is_object()) {
    body = &root["text_config"];
    prefix = "text_config.";
  }
  Cfg c(*body, origin, prefix);
  TRY(body_type, c.text_or("model_type", ""));
  std::string type = body_type;
  if (type.empty() && body != &root) {
    TRY(root_type, Cfg(root, origin).text_or("model_type", ""));
    type = root_type;
  }
  if (type.empty() && root.contains("architectures") && root["architectures"].is_array() &&
      !root["architectures"].empty() && root["architectures"][0].is_string()) {
    // Configs without model_type (e.g. the Megatron GPT files of the validation set) name their
    // architecture instead.
    const std::string arch = root["architectures"][0];
    if (arch == "GPT2LMHeadModel") type = "gpt3";
    if (arch == "LlamaForCausalLM") type = "llama";
    if (arch == "MistralForCausalLM") type = "mistral";
    if (arch == "MixtralForCausalLM") type = "mixtral";
    if (arch == "Qwen2ForCausalLM") type = "qwen2";
    if (arch == "Qwen3ForCausalLM") type = "qwen3";
  }
  if (type.empty()) {
    return Error{origin, "model_type", "missing required field",
                 "a HuggingFace config.json names its model_type (llama, qwen3, deepseek_v3, ...)"};
  }
  m.family = type;
  TRY(quant, quant_dtype(root, origin));
  m.native_weight_dtype = quant;
  m.native_expert_dtype = m.native_weight_dtype;

  if (type == "deepseek_v3" || type == "deepseek_v2" || type == "kimi_k2" || type == "deepseek_v32") {
    return parse_deepseek_v3_family(c, std::move(m));
  }

  if (type == "gemma3_text" || type == "gemma3") return parse_gemma3(*body, origin, prefix, std::move(m));

  TRY_STATUS(read_gqa(c, m));

  if (type == "llama" || type == "mistral" || type == "qwen2" || type == "qwen3" || type == "mixtral" ||
      type == "qwen2_moe" || type == "qwen3_moe") {
    return parse_llama_like(c, type, std::move(m));
  }

  if (type == "qwen3_next") return parse_qwen3_next(c, std::move(m));

  if (type == "gpt_oss") return parse_gpt_oss(c, origin, std::move(m));

  if (type == "llama4_text" || type == "llama4") return parse_llama4(c, std::move(m));

  if (auto own = parse_own_type(c, type, m)) return std::move(*own);
  return Error{origin, c.field("model_type"), "unsupported model_type '" + type + "'",
               "supported: llama, mistral, mixtral, qwen2, qwen3, qwen2_moe, qwen3_moe, qwen3_next, "
               "deepseek_v2, deepseek_v3, kimi_k2, gpt_oss, gemma3, llama4, palm, gpt3, chinchilla"};
}

}  // namespace llmecon::config_internal
