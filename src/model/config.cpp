// Reading model configs: HuggingFace config.json (Llama, Mistral/Mixtral, Qwen2/3 dense and
// MoE, Qwen3-Next, DeepSeek V2/V3/V3.2, Kimi K2, gpt-oss, Gemma 3, Llama 4, and llmecon's own
// model_types for PaLM, GPT-3 and Chinchilla) and DeepSeek's inference config format.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "config_reader.hpp"
#include "model/model.hpp"
#include "units/json_text.hpp"

namespace llmecon::config_internal {

Result<DType> quant_dtype(const JsonValue& root, const std::string& origin) {
  if (root.contains("quantization_config") && !root["quantization_config"].is_null()) {
    const auto& q = root["quantization_config"];
    if (!q.is_object()) return Error{origin, "quantization_config", "expected an object, got " + json_text(q), ""};
    if (q.contains("quant_method")) {
      if (!q["quant_method"].is_string()) {
        return Error{origin, "quantization_config.quant_method",
                     "expected a string, got " + json_text(q["quant_method"]), "e.g. \"fp8\" or \"mxfp4\""};
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
  TRY(layers, c.layers("num_hidden_layers"));
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

namespace {

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

}  // namespace

Result<ModelSpec> parse_deepseek_v3_family(const Cfg& c, ModelSpec m) {
  TRY(d, c.integer("hidden_size"));
  TRY(layers, c.layers("num_hidden_layers"));
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

namespace {

// DeepSeek's own inference format (inference/configs/config_671B.json).
Result<ModelSpec> parse_deepseek_inference(const Cfg& c, ModelSpec m) {
  m.family = "deepseek_v3";
  TRY(d, c.integer("dim"));
  TRY(layers, c.layers("n_layers"));
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
    return bad("num_hidden_layers", "more than 10^4 layers", "no real model has that many");
  if (m.d_model > kMaxWidth) return bad("hidden_size", "wider than 10^6", "no real model is that wide");
  if (m.vocab > kMaxVocab) return bad("vocab_size", "more than 10^7 tokens", "no real tokenizer has that many");
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
}  // namespace llmecon::config_internal

namespace llmecon {

using config_internal::apply_kv_sharing;
using config_internal::Cfg;
using config_internal::check_sane;
using config_internal::JsonValue;
using config_internal::parse_deepseek_inference;
using config_internal::parse_hf;

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
      return Error{origin, "llmecon_sparse_attention", "unknown value " + llmecon::json_text(s), "use \"sqrt\""};
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
