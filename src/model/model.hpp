// model/model.hpp: transformer architectures as values, read from HuggingFace config.json,
// DeepSeek's inference config format, or the embedded catalog.
//
//   auto cat = ModelCatalog::builtin();
//   auto m = cat->resolve("llama-3.1-70b", "--model");     // a name or a path to config.json
//   double n = m->params_total();                           // 70.55e9, computed from dimensions
//   BytesPerToken kv = m->kv_bytes_per_token(DType::kBf16); // 327,680 B/token
//
// Parameter counts are computed from the dimensions, never typed in. Convention
// (docs/model.md §2): params_total counts every stored weight, the input embedding and the
// output head (once when tied), norms and biases; multi-token-prediction modules and vision
// towers are excluded. params_active counts the weights one token uses: attention, dense MLPs,
// the top-k routed experts plus shared experts, norms, the output head and the input embedding
// row set; params_active_matmul leaves out the input embedding (a lookup, no FLOPs).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/dtype.hpp"
#include "units/error.hpp"
#include "units/units.hpp"

namespace llmecon {

/// How a layer mixes tokens.
enum class Mixer {
  kFull,     ///< causal attention over the whole context
  kSliding,  ///< attention over the last `window` tokens (Mistral, gpt-oss, Gemma 3 local)
  kChunked,  ///< attention within fixed chunks of `window` tokens (Llama 4 local layers)
  kLinear,   ///< linear attention / state-space: a fixed-size state, no per-token KV
};
std::string_view name(Mixer m);

enum class AttentionKind {
  kGqa,  ///< MHA (kv_heads == heads), GQA, MQA (kv_heads == 1)
  kMla,  ///< DeepSeek multi-head latent attention
};

/// Sparse attention over the KV cache (docs/model.md §3.4).
enum class SparseAttention {
  kDense,  ///< every cached token is read
  kTopK,   ///< DeepSeek DSA: a lightning indexer picks `index_topk` tokens per query
  kSqrt,   ///< block-sparse: sqrt(block * context) tokens are read
};

struct Attention {
  AttentionKind kind = AttentionKind::kGqa;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;    ///< q/k head dim for GQA
  int v_head_dim = 0;  ///< equals head_dim for GQA
  bool qkv_bias = false;
  bool o_bias = false;
  bool qk_norm = false;
  bool sinks = false;         ///< learned per-head softmax sinks (gpt-oss)
  bool gated_q = false;       ///< q_proj also produces an output gate (Qwen3-Next)
  bool rel_pos_proj = false;  ///< an extra d x d relative-position projection (Transformer-XL)
  // MLA
  int q_lora_rank = 0;  ///< 0 = plain q projection
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  // Sparse attention
  SparseAttention sparse = SparseAttention::kDense;
  int index_heads = 0;
  int index_head_dim = 0;
  int index_topk = 0;
  int sqrt_block = 64;
};

/// Linear-attention (Gated DeltaNet) dimensions, for hybrid models.
struct LinearAttention {
  int key_heads = 0;
  int value_heads = 0;
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;
};

struct Moe {
  int experts = 0;  ///< routed experts
  int top_k = 0;
  int expert_ffn = 0;        ///< intermediate size of one routed expert
  int shared_ffn = 0;        ///< total intermediate size of always-on shared experts (0 = none)
  bool shared_gate = false;  ///< a scalar sigmoid gate on the shared expert (Qwen3-Next)
  bool expert_bias = false;  ///< biases in expert projections (gpt-oss)
  bool router_bias = false;
  int group_limit = 0;  ///< node-limited routing: a token's experts lie in at most this many groups (0 = none)
};

struct Layer {
  Mixer mixer = Mixer::kFull;
  int window = 0;      ///< tokens, for kSliding / kChunked
  bool moe = false;    ///< routed experts instead of a dense MLP
  int dense_ffn = 0;   ///< intermediate size of the dense MLP when !moe
  int kv_source = -1;  ///< >= 0: this layer reuses the KV cache of that layer (cross-layer sharing)
};

enum class MlpKind { kGated, kPlain };  ///< SwiGLU/GeGLU (3 matrices) vs GELU (2 matrices)

struct ModelSpec {
  std::string name;
  std::string family;  ///< model_type from the config
  std::string origin;  ///< file it came from
  int d_model = 0;
  int vocab = 0;
  bool tied_embeddings = false;
  MlpKind mlp = MlpKind::kGated;
  bool mlp_bias = false;
  Attention attn;
  LinearAttention linear;
  Moe moe;
  std::vector<Layer> layers;
  int norms_per_layer = 2;                   ///< RMSNorm/LayerNorm vectors per layer (Gemma 3: 4)
  bool norm_bias = false;                    ///< LayerNorm with bias (GPT-3)
  int learned_positions = 0;                 ///< rows of a learned position embedding (GPT-3)
  DType native_weight_dtype = DType::kBf16;  ///< dense weights as released
  DType native_expert_dtype = DType::kBf16;  ///< routed-expert weights as released
  int max_context = 0;

  [[nodiscard]] int n_layers() const { return static_cast<int>(layers.size()); }
  [[nodiscard]] bool is_moe() const { return moe.experts > 0; }

  // ---- parameter counts (model.md §2) ----
  [[nodiscard]] double params_attention(const Layer& l) const;
  [[nodiscard]] double params_mlp_dense(const Layer& l) const;
  [[nodiscard]] double params_expert() const;  ///< one routed expert
  [[nodiscard]] double params_shared_experts() const;
  [[nodiscard]] double params_router() const;
  [[nodiscard]] double params_layer_norms(const Layer& l) const;
  /// Lookup tables: the token embedding plus learned positions.
  [[nodiscard]] double params_embedding() const { return (static_cast<double>(vocab) + learned_positions) * d_model; }
  /// The output projection's weights (shared with the embedding when tied).
  [[nodiscard]] double params_head() const { return static_cast<double>(vocab) * d_model; }
  [[nodiscard]] double params_total() const;
  [[nodiscard]] double params_active() const;
  /// Weights multiplied per token: params_active without lookup-only tables.
  [[nodiscard]] double params_active_matmul() const;
  /// Total / active: the lecture's sparsity S.
  [[nodiscard]] double sparsity() const { return params_total() / params_active(); }
  /// Weights stored in routed experts, all layers.
  [[nodiscard]] double params_routed_experts() const;

  // ---- KV cache (model.md §3) ----
  /// KV bytes one layer stores per cached token (0 for linear layers and shared-KV layers).
  [[nodiscard]] double kv_bytes_per_token_layer(const Layer& l, DType kv) const;
  /// Growth of the KV cache per context token, summed over layers whose cache grows without
  /// bound (full attention). Sliding/chunked layers are capped; see kv_bytes_sequence.
  [[nodiscard]] BytesPerToken kv_bytes_per_token(DType kv) const;
  /// KV bytes one sequence holds at `context` tokens, every layer (windows capped, linear
  /// states included).
  [[nodiscard]] Bytes kv_bytes_sequence(double context, DType kv) const;
  /// Bytes of one linear-attention layer's recurrent state per sequence.
  [[nodiscard]] double linear_state_bytes(DType kv) const;

  /// Bytes of all weights at the given dense and expert formats.
  [[nodiscard]] Bytes weight_bytes(DType dense, DType expert) const;
};

/// Reads a HuggingFace config.json (or DeepSeek inference config) from text. `origin` names the
/// file in errors; `name` becomes the model's name.
Result<ModelSpec> parse_model_config(std::string_view json_text, const std::string& origin, const std::string& name);
/// Reads a config file from disk; the model is named after the file stem.
Result<ModelSpec> load_model_file(const std::string& path);

/// A published parameter count to check the computed one against.
struct PublishedParams {
  double total = 0.0;
  double total_rounding = 0.0;  ///< half a unit of the last published digit ("70.6B" -> 0.05e9)
  double active = 0.0;          ///< 0 when not published (dense models)
  double active_rounding = 0.0;
  double active_tolerance = 0.01;  ///< relative; an entry may widen it and say why
  bool active_includes_embedding = true;
  std::string source;
};

struct ModelEntry {
  std::string name;
  ModelSpec spec;  ///< parsed once when the catalog loads
  std::string file;
  std::string source;
  std::string notes;
  PublishedParams published;
};

/// The embedded models (data/models/index.toml plus the configs it names).
class ModelCatalog {
 public:
  static Result<ModelCatalog> builtin();
  [[nodiscard]] const std::vector<ModelEntry>& entries() const { return entries_; }
  [[nodiscard]] const ModelEntry* entry(std::string_view name) const;
  /// Loads a built-in model by name.
  [[nodiscard]] Result<ModelSpec> load(std::string_view name) const;
  /// Names of all built-in models.
  [[nodiscard]] std::vector<std::string> names() const;
  /// A built-in name, or else a path to a config file. Errors name `flag`.
  [[nodiscard]] Result<ModelSpec> resolve(std::string_view name_or_path, const std::string& flag) const;
  /// The error for a name that is neither a built-in model nor a path, with the nearest names.
  [[nodiscard]] Error unknown_model(std::string_view name, const std::string& flag) const;

 private:
  std::vector<ModelEntry> entries_;
};

}  // namespace llmecon
