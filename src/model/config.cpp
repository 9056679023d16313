// Reading model configs: HuggingFace config.json (Llama, Mistral/Mixtral, Qwen2/3 dense and
// MoE, Qwen3-Next, DeepSeek V2/V3/V3.2, Kimi K2, gpt-oss, Gemma 3, Llama 4, and llmecon's own
// model_types for PaLM, GPT-3 and Chinchilla) and DeepSeek's inference config format.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace llmecon {
namespace {

using JsonValue = nlohmann::json;

// The sane range of model dimensions (model.md §2.4): physically possible with headroom.
constexpr int kMaxLayers = 100000;
constexpr int kMaxWidth = 1000000;
constexpr int kMaxExperts = 1000000;
constexpr int kMaxVocab = 100000000;
constexpr int kMaxContext = 100000000;
constexpr long long kMaxFfn = 10000000;

/// Field access with errors that name the file and field.
class Cfg {
 public:
  Cfg(const JsonValue& j, std::string origin, std::string prefix = "")
      : j_(j), origin_(std::move(origin)), prefix_(std::move(prefix)) {}

  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }

  Result<int> integer(const char* key) const {
    if (!has(key)) {
      return Error{origin_, field(key), "missing required field",
                   "a config.json for this model_type needs \"" + std::string(key) + "\""};
    }
    return checked_int(key);
  }
  Result<int> integer_or(const char* key, int fallback) const {
    if (!has(key)) return fallback;
    return checked_int(key);
  }
  /// Like integer_or but 0 is allowed (counts that may be absent, e.g. shared experts).
  Result<int> count_or(const char* key, int fallback) const {
    if (!has(key)) return fallback;
    if (j_.at(key).is_number_integer() && j_.at(key).get<long long>() == 0) return 0;
    return checked_int(key);
  }
  Result<bool> boolean_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const JsonValue& v = j_.at(key);
    if (!v.is_boolean()) return Error{origin_, field(key), "expected true or false", ""};
    return v.get<bool>();
  }
  std::string string_or(const char* key, std::string fallback) const {
    if (!has(key) || !j_.at(key).is_string()) return fallback;
    return j_.at(key).get<std::string>();
  }
  /// A list of whole numbers in [lo, hi] (layer indices, flags); absent is empty.
  Result<std::vector<int>> int_list(const char* key, int lo, int hi) const {
    std::vector<int> out;
    if (!has(key)) return out;
    const JsonValue& v = j_.at(key);
    if (!v.is_array())
      return Error{origin_, field(key), "expected a list of integers, got " + std::string(v.type_name()), ""};
    for (const auto& e : v) {
      if (!e.is_number_integer()) {
        return Error{origin_, field(key), "expected integers, got " + e.dump(), "layer indices like [0, 1, 2]"};
      }
      const auto x = e.get<long long>();
      if (x < lo || x > hi) {
        return Error{origin_, field(key),
                     "entry " + e.dump() + " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", ""};
      }
      out.push_back(static_cast<int>(x));
    }
    return out;
  }
  /// A text field that, when present, must be text.
  Result<std::string> text_or(const char* key, std::string fallback) const {
    if (!has(key)) return fallback;
    if (!j_.at(key).is_string()) return Error{origin_, field(key), "expected a string, got " + j_.at(key).dump(), ""};
    return j_.at(key).get<std::string>();
  }
  const JsonValue& raw() const { return j_; }
  std::string field(const char* key) const { return prefix_ + key; }
  const std::string& origin() const { return origin_; }

 private:
  Result<int> checked_int(const char* key) const {
    const JsonValue& v = j_.at(key);
    if (!v.is_number_integer() && !(v.is_number_float() && v.get<double>() == std::floor(v.get<double>()))) {
      return Error{origin_, field(key), "expected an integer, got " + std::string(v.type_name()), ""};
    }
    const double x = v.get<double>();
    if (x <= 0) {
      return Error{origin_, field(key), "must be positive, got " + v.dump(), "sizes and counts are at least 1"};
    }
    if (x > 1e9) return Error{origin_, field(key), "implausibly large: " + v.dump(), ""};
    return static_cast<int>(x);
  }

  const JsonValue& j_;
  std::string origin_;
  std::string prefix_;
};

Result<DType> quant_dtype(const JsonValue& root, const std::string& origin) {
  if (root.contains("quantization_config") && !root["quantization_config"].is_null()) {
    const auto& q = root["quantization_config"];
    if (!q.is_object()) return Error{origin, "quantization_config", "expected an object, got " + q.dump(), ""};
    if (q.contains("quant_method")) {
      if (!q["quant_method"].is_string()) {
        return Error{origin, "quantization_config.quant_method", "expected a string, got " + q["quant_method"].dump(),
                     "e.g. \"fp8\" or \"mxfp4\""};
      }
      const std::string m = q["quant_method"].get<std::string>();
      if (m == "fp8") return DType::kFp8;
      if (m == "mxfp4") return DType::kFp4;
    }
  }
  if (root.contains("dtype") && root["dtype"].is_string() && root["dtype"] == "fp8") return DType::kFp8;
  return DType::kBf16;
}

// Fields common to the GQA families.
Status read_gqa(const Cfg& c, ModelSpec& m) {
  TRY(d, c.integer("hidden_size"));
  TRY(layers, c.integer("num_hidden_layers"));
  TRY(heads, c.integer("num_attention_heads"));
  TRY(kv, c.integer_or("num_key_value_heads", heads));
  if (heads % kv != 0) {
    return Error{c.origin(), c.field("num_key_value_heads"),
                 "must divide num_attention_heads (" + std::to_string(heads) + ")", ""};
  }
  TRY(hd, c.integer_or("head_dim", d / heads));
  TRY(vocab, c.integer("vocab_size"));
  TRY(tied, c.boolean_or("tie_word_embeddings", false));
  TRY(bias, c.boolean_or("attention_bias", false));
  m.d_model = d;
  m.vocab = vocab;
  m.tied_embeddings = tied;
  m.attn.kind = AttentionKind::kGqa;
  m.attn.heads = heads;
  m.attn.kv_heads = kv;
  m.attn.head_dim = hd;
  m.attn.v_head_dim = hd;
  m.attn.qkv_bias = bias;
  m.attn.o_bias = bias;
  m.layers.assign(static_cast<std::size_t>(layers), Layer{});
  TRY(maxpos, c.integer_or("max_position_embeddings", 4096));
  m.max_context = maxpos;
  return {};
}

Status set_dense_ffn(const Cfg& c, ModelSpec& m, const char* key) {
  TRY(f, c.integer(key));
  for (auto& l : m.layers) l.dense_ffn = f;
  return {};
}

Status read_mla(const Cfg& c, ModelSpec& m) {
  m.attn.kind = AttentionKind::kMla;
  TRY(ql, c.count_or("q_lora_rank", 0));
  TRY(kl, c.integer("kv_lora_rank"));
  TRY(nope, c.integer("qk_nope_head_dim"));
  TRY(rope, c.integer("qk_rope_head_dim"));
  TRY(vd, c.integer("v_head_dim"));
  m.attn.q_lora_rank = ql;
  m.attn.kv_lora_rank = kl;
  m.attn.qk_nope_head_dim = nope;
  m.attn.qk_rope_head_dim = rope;
  m.attn.v_head_dim = vd;
  m.attn.head_dim = nope + rope;
  m.attn.kv_heads = m.attn.heads;
  m.attn.qkv_bias = m.attn.o_bias = false;
  if (c.has("index_topk")) {
    TRY(ih, c.integer("index_n_heads"));
    TRY(id, c.integer("index_head_dim"));
    TRY(tk, c.integer("index_topk"));
    m.attn.sparse = SparseAttention::kTopK;
    m.attn.index_heads = ih;
    m.attn.index_head_dim = id;
    m.attn.index_topk = tk;
  }
  return {};
}

// The shared experts' total intermediate size, n_shared x moe_intermediate, computed without
// overflow and held to the sane range (model.md §2.4).
Result<int> shared_ffn(const Cfg& c, int shared_experts, int expert_ffn) {
  const long long total = static_cast<long long>(shared_experts) * expert_ffn;
  if (total > kMaxFfn) {
    return Error{
        c.origin(), c.field("n_shared_experts"),
        "shared experts x moe_intermediate_size = " + std::to_string(total) + " exceeds " + std::to_string(kMaxFfn),
        "an intermediate size above 10^7 is not a real model"};
  }
  return static_cast<int>(total);
}

Result<ModelSpec> parse_deepseek_v3_family(const Cfg& c, ModelSpec m) {
  TRY(d, c.integer("hidden_size"));
  TRY(layers, c.integer("num_hidden_layers"));
  TRY(heads, c.integer("num_attention_heads"));
  TRY(vocab, c.integer("vocab_size"));
  TRY(tied, c.boolean_or("tie_word_embeddings", false));
  m.d_model = d;
  m.vocab = vocab;
  m.tied_embeddings = tied;
  m.attn.heads = heads;
  TRY_STATUS(read_mla(c, m));
  m.layers.assign(static_cast<std::size_t>(layers), Layer{});
  TRY(inter, c.integer("intermediate_size"));
  if (c.has("n_routed_experts")) {
    TRY(e, c.integer("n_routed_experts"));
    TRY(k, c.integer("num_experts_per_tok"));
    TRY(fe, c.integer("moe_intermediate_size"));
    TRY(ns, c.count_or("n_shared_experts", 0));
    TRY(first_dense, c.count_or("first_k_dense_replace", 0));
    TRY(freq, c.integer_or("moe_layer_freq", 1));
    TRY(shared, shared_ffn(c, ns, fe));
    m.moe = Moe{e, k, fe, shared, false, false, false, 0};
    // Node-limited routing only means something with more than one expert group.
    TRY(groups, c.count_or("n_group", 0));
    TRY(limit, c.count_or("topk_group", 0));
    m.moe.group_limit = groups > 1 ? limit : 0;
    for (int i = 0; i < layers; ++i) {
      auto& l = m.layers[static_cast<std::size_t>(i)];
      l.moe = i >= first_dense && i % freq == 0;
      l.dense_ffn = l.moe ? 0 : inter;
    }
  } else {
    for (auto& l : m.layers) l.dense_ffn = inter;
  }
  TRY(maxpos, c.integer_or("max_position_embeddings", 4096));
  m.max_context = maxpos;
  m.norms_per_layer = 2;
  return m;
}

// DeepSeek's own inference format (inference/configs/config_671B.json).
Result<ModelSpec> parse_deepseek_inference(const Cfg& c, ModelSpec m) {
  m.family = "deepseek_v3";
  TRY(d, c.integer("dim"));
  TRY(layers, c.integer("n_layers"));
  TRY(heads, c.integer("n_heads"));
  TRY(vocab, c.integer("vocab_size"));
  TRY(inter, c.integer("inter_dim"));
  TRY(fe, c.integer("moe_inter_dim"));
  TRY(e, c.integer("n_routed_experts"));
  TRY(k, c.integer("n_activated_experts"));
  TRY(ns, c.count_or("n_shared_experts", 1));
  TRY(dense, c.count_or("n_dense_layers", 1));
  m.d_model = d;
  m.vocab = vocab;
  m.tied_embeddings = false;
  m.attn.heads = heads;
  TRY_STATUS(read_mla(c, m));
  TRY(shared, shared_ffn(c, ns, fe));
  m.moe = Moe{e, k, fe, shared, false, false, false, 0};
  TRY(groups, c.count_or("n_expert_groups", 0));
  TRY(limit, c.count_or("n_limited_groups", 0));
  m.moe.group_limit = groups > 1 ? limit : 0;
  m.layers.assign(static_cast<std::size_t>(layers), Layer{});
  for (int i = 0; i < layers; ++i) {
    auto& l = m.layers[static_cast<std::size_t>(i)];
    l.moe = i >= dense;
    l.dense_ffn = l.moe ? 0 : inter;
  }
  m.max_context = 163840;
  return m;
}

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
        return Error{origin, c.field("layer_types"), "entry " + std::to_string(i) + " is " + types[i].dump(),
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

// Cross-layer KV sharing (model.md §3.3): "cross_layer_kv_sharing": N groups N consecutive
// layers that reuse the first one's KV cache.
Status apply_kv_sharing(const JsonValue& root, const std::string& origin, ModelSpec& m) {
  if (!root.contains("cross_layer_kv_sharing")) return {};
  const JsonValue& v = root["cross_layer_kv_sharing"];
  if (!v.is_number_integer() || v.get<int>() < 1) {
    return Error{origin, "cross_layer_kv_sharing", "expected a positive integer group size", ""};
  }
  const auto g = static_cast<std::size_t>(v.get<int>());
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    if (i % g != 0) m.layers[i].kv_source = static_cast<int>(i - i % g);
  }
  return {};
}

// model.md §2.4: the dimensions a real model can have, with headroom; anything outside is an
// error naming the field, never a silently meaningless number.
Status check_sane(const ModelSpec& m, const std::string& origin) {
  auto bad = [&origin](const char* field, const std::string& what, const char* hint) {
    return Error{origin, field, what, hint};
  };
  if (m.n_layers() > kMaxLayers)
    return bad("num_hidden_layers", "more than 10^5 layers", "no real model has that many");
  if (m.d_model > kMaxWidth) return bad("hidden_size", "wider than 10^6", "no real model is that wide");
  if (m.vocab > kMaxVocab) return bad("vocab_size", "more than 10^8 tokens", "");
  if (m.max_context > kMaxContext) return bad("max_position_embeddings", "more than 10^8 tokens of context", "");
  if (m.attn.kind == AttentionKind::kGqa && m.attn.heads > 0) {
    if (m.attn.head_dim < 1) {
      return bad("hidden_size", "smaller than num_attention_heads: the head dimension would be 0",
                 "hidden_size / num_attention_heads is the head dimension; give head_dim");
    }
    if (m.attn.kv_heads > m.attn.heads) {
      return bad("num_key_value_heads", "more KV heads than attention heads",
                 "GQA shares each KV head among query heads");
    }
  }
  if (m.is_moe()) {
    if (m.moe.experts > kMaxExperts) return bad("num_experts", "more than 10^6 experts", "");
    if (m.moe.top_k > m.moe.experts) {
      return bad(
          "num_experts_per_tok",
          "routes each token to " + std::to_string(m.moe.top_k) + " of " + std::to_string(m.moe.experts) + " experts",
          "a token's experts are among the model's experts");
    }
  }
  for (const auto& l : m.layers) {
    if (l.dense_ffn > kMaxFfn) return bad("intermediate_size", "more than 10^7", "");
  }
  return {};
}

}  // namespace

Result<ModelSpec> parse_model_config(std::string_view json_text, const std::string& origin, const std::string& name) {
  JsonValue root;
  try {
    root = JsonValue::parse(json_text);
  } catch (const JsonValue::parse_error& e) {
    return Error{origin, "", "malformed JSON at byte " + std::to_string(e.byte),
                 "the file is truncated or not valid JSON"};
  } catch (const JsonValue::out_of_range&) {
    return Error{origin, "", "a number out of range", "sizes are whole numbers well within 10^9"};
  }
  if (!root.is_object()) return Error{origin, "", "expected a JSON object", "a config.json is one object"};
  ModelSpec m;
  m.name = name;
  m.origin = origin;
  Result<ModelSpec> r = (root.contains("dim") && root.contains("n_layers"))
                            ? parse_deepseek_inference(Cfg(root, origin), std::move(m))
                            : parse_hf(root, origin, std::move(m));
  if (!r) return r;
  ModelSpec out = std::move(r).value();
  if (root.contains("dtype") && root["dtype"] == "fp8") out.native_weight_dtype = out.native_expert_dtype = DType::kFp8;
  if (root.contains("llmecon_sparse_attention")) {
    const JsonValue& s = root["llmecon_sparse_attention"];
    if (s == "sqrt") {
      out.attn.sparse = SparseAttention::kSqrt;
    } else {
      return Error{origin, "llmecon_sparse_attention", "unknown value " + s.dump(), "use \"sqrt\""};
    }
  }
  TRY_STATUS(apply_kv_sharing(root, origin, out));
  TRY_STATUS(check_sane(out, origin));
  return out;
}

Result<ModelSpec> load_model_file(const std::string& path) {
  auto text = read_text_file(path, "give a built-in model name (`llmecon models`) or a path to a config.json");
  if (!text) return text.error();
  std::string stem = path;
  if (auto slash = stem.find_last_of('/'); slash != std::string::npos) stem = stem.substr(slash + 1);
  if (auto dot = stem.find(".json"); dot != std::string::npos) stem = stem.substr(0, dot);
  return parse_model_config(*text, path, stem);
}

}  // namespace llmecon
