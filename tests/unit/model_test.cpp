// Model import and parameter/KV accounting against published figures and hand derivations.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "model/model.hpp"

namespace llmecon {
namespace {

const std::string kData = LLMECON_TEST_DATA;

ModelSpec load(const char* name) {
  auto cat = ModelCatalog::builtin();
  EXPECT_TRUE(cat) << cat.error().message();
  auto m = cat->load(name);
  EXPECT_TRUE(m) << m.error().message();
  return *m;
}

TEST(Models, BuiltinListIsComplete) {
  auto cat = ModelCatalog::builtin();
  ASSERT_TRUE(cat);
  for (const char* n : {"llama-2-7b",        "llama-2-70b",   "llama-3.1-8b",    "llama-3.1-70b", "llama-3.1-405b",
                        "llama-3.3-70b",     "mistral-7b",    "mixtral-8x7b",    "mixtral-8x22b", "qwen3-8b",
                        "qwen3-32b",         "qwen3-30b-a3b", "qwen3-235b-a22b", "deepseek-v3",   "deepseek-r1",
                        "deepseek-v3.2-exp", "kimi-k2",       "gpt-oss-20b",     "gpt-oss-120b",  "gemma-3-27b",
                        "palm-8b",           "palm-62b",      "palm-540b",       "gpt-3-175b",    "chinchilla-70b"}) {
    EXPECT_NE(cat->entry(n), nullptr) << n;
  }
}

// Computed counts match the publisher's, within the rounding of the published figure or 1%.
// Active counts follow each publisher's embedding convention (index.toml).
TEST(Models, ParameterCountsMatchPublished) {
  auto cat = ModelCatalog::builtin();
  ASSERT_TRUE(cat);
  int checked = 0;
  for (const auto& e : cat->entries()) {
    auto m = cat->load(e.name);
    ASSERT_TRUE(m) << e.name << ": " << m.error().message();
    if (e.published.total > 0) {
      const double tol = std::max(0.01 * e.published.total, e.published.total_rounding);
      EXPECT_NEAR(m->params_total(), e.published.total, tol) << e.name << " total";
      ++checked;
    }
    if (e.published.active > 0) {
      const double computed = e.published.active_includes_embedding ? m->params_active() : m->params_active_matmul();
      const double tol = std::max(e.published.active_tolerance * e.published.active, e.published.active_rounding);
      EXPECT_NEAR(computed, e.published.active, tol) << e.name << " active";
      ++checked;
    }
  }
  EXPECT_GE(checked, 35);
}

TEST(Models, ExactCountsFromDimensions) {
  // Llama 3.1 8B: 32 x [4096*(4096+2*1024+4096) + 3*4096*14336 + 2*4096] + 2*128256*4096 + 4096
  //             = 32 x 218,112,000 + 1,050,673,152 + 4096 = 8,030,261,248.
  EXPECT_DOUBLE_EQ(load("llama-3.1-8b").params_total(), 8030261248.0);
  // PaLM 540B: 118 x [18432*48*256*2 + 18432*2*256 + 3*18432*73728 + 18432] + 256000*18432.
  const double palm_layer = 18432.0 * 48 * 256 * 2 + 18432.0 * 2 * 256 + 3.0 * 18432 * 73728 + 18432;
  EXPECT_DOUBLE_EQ(load("palm-540b").params_total(), 118 * palm_layer + 256000.0 * 18432 + 18432);
  // DeepSeek-V3 active in matmuls: 36.6B per DeepSeek's README_WEIGHTS (incl. 0.9B head).
  EXPECT_NEAR(load("deepseek-v3").params_active_matmul() / 1e9, 36.6, 0.1);
}

TEST(Models, KvBytesPerTokenGolden) {
  // Llama 3.1 70B: 80 layers x 2 (K,V) x 8 KV heads x 128 dims x 2 bytes = 327,680 B/token.
  EXPECT_DOUBLE_EQ(load("llama-3.1-70b").kv_bytes_per_token(DType::kBf16).si(), 327680.0);
  // DeepSeek-V3 MLA: 61 layers x (512 latent + 64 RoPE key) x 2 bytes = 70,272 B/token.
  EXPECT_DOUBLE_EQ(load("deepseek-v3").kv_bytes_per_token(DType::kBf16).si(), 61.0 * 576 * 2);
  // PaLM 540B multi-query: 118 x 2 x 1 x 256 x 2 bytes.
  EXPECT_DOUBLE_EQ(load("palm-540b").kv_bytes_per_token(DType::kBf16).si(), 118.0 * 2 * 256 * 2);
  // fp8 KV halves it.
  EXPECT_DOUBLE_EQ(load("llama-3.1-70b").kv_bytes_per_token(DType::kFp8).si(), 163840.0);
}

TEST(Models, DeepSeekInferenceFormatEqualsHfConfig) {
  auto a = load_model_file(kData + "/../../data/models/deepseek-v3-671b.inference-config.json");
  ASSERT_TRUE(a) << a.error().message();
  const ModelSpec b = load("deepseek-v3");
  EXPECT_DOUBLE_EQ(a->params_total(), b.params_total());
  EXPECT_DOUBLE_EQ(a->params_active(), b.params_active());
  EXPECT_EQ(a->native_weight_dtype, DType::kFp8);
}

TEST(Models, SlidingWindowCapsKv) {
  // gpt-oss-120b: 18 full layers grow; 18 sliding layers hold at most 128 tokens.
  const ModelSpec m = load("gpt-oss-120b");
  const double per_layer = 2.0 * 8 * 64 * 2;  // K,V x 8 KV heads x 64 dims x bf16
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token(DType::kBf16).si(), 18 * per_layer);
  EXPECT_DOUBLE_EQ(m.kv_bytes_sequence(100000, DType::kBf16).si(), 18 * per_layer * 100000 + 18 * per_layer * 128);
  // Gemma 3 27B: 10 global layers, 52 local layers with a 1024-token window.
  const ModelSpec g = load("gemma-3-27b");
  int global = 0;
  for (const auto& l : g.layers) global += l.mixer == Mixer::kFull ? 1 : 0;
  EXPECT_EQ(global, 10);
  EXPECT_DOUBLE_EQ(g.kv_bytes_per_token(DType::kBf16).si(), 10 * 2.0 * 16 * 128 * 2);
  EXPECT_EQ(g.vocab, 262208);  // Gemma3TextConfig default
}

TEST(Models, HybridLinearAttention) {
  const ModelSpec m = load("qwen3-next-80b-a3b");
  int linear = 0;
  for (const auto& l : m.layers) linear += l.mixer == Mixer::kLinear ? 1 : 0;
  EXPECT_EQ(linear, 36);
  // Only the 12 full-attention layers grow with context: 12 x 2 x 2 KV heads x 256 x 2 bytes.
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token(DType::kBf16).si(), 12 * 2.0 * 2 * 256 * 2);
  EXPECT_GT(m.kv_bytes_sequence(1, DType::kBf16).si(), 36 * m.linear_state_bytes(DType::kBf16));
}

TEST(Models, Llama4ChunkedAndGlobalLayers) {
  const ModelSpec m = load("llama-4-scout");
  int chunked = 0;
  for (const auto& l : m.layers) chunked += l.mixer == Mixer::kChunked ? 1 : 0;
  EXPECT_EQ(chunked, 36);
  EXPECT_EQ(m.moe.experts, 16);
  EXPECT_EQ(m.moe.shared_ffn, 8192);
}

TEST(Models, NodeLimitedRouting) {
  EXPECT_EQ(load("deepseek-v3").moe.group_limit, 4);  // 8 groups, top-4 groups per token
  EXPECT_EQ(load("deepseek-v3.2-exp").moe.group_limit, 4);
  EXPECT_EQ(load("kimi-k2").moe.group_limit, 0);  // one group: no limit
}

TEST(Models, DsaIndexerIsCounted) {
  const ModelSpec v32 = load("deepseek-v3.2-exp");
  EXPECT_EQ(v32.attn.sparse, SparseAttention::kTopK);
  EXPECT_EQ(v32.attn.index_topk, 2048);
  // The indexer adds one FP8 128-dim key per token per layer to the cache.
  EXPECT_DOUBLE_EQ(v32.kv_bytes_per_token(DType::kBf16).si(), 61.0 * (576 * 2 + 128));
  EXPECT_GT(v32.params_total(), load("deepseek-v3").params_total());
}

TEST(Models, CrossLayerKvSharingAndSqrtSparse) {
  auto plain = load_model_file(kData + "/tiny_llama.json");
  auto shared = load_model_file(kData + "/tiny_llama_cla.json");
  auto sparse = load_model_file(kData + "/tiny_llama_sqrt.json");
  ASSERT_TRUE(plain && shared && sparse);
  EXPECT_DOUBLE_EQ(shared->kv_bytes_per_token(DType::kBf16).si(), plain->kv_bytes_per_token(DType::kBf16).si() / 2);
  EXPECT_DOUBLE_EQ(shared->params_total(), plain->params_total());
  EXPECT_EQ(sparse->attn.sparse, SparseAttention::kSqrt);
}

TEST(Models, EveryConfigFileLoads) {
  // The repo's copies of ../shared/models/hf (and llmecon's own configs) all load; when the
  // shared folder is present, every file in it must have a copy here.
  namespace fs = std::filesystem;
  const fs::path repo = fs::path(kData) / ".." / ".." / "data" / "models";
  int n = 0;
  for (const auto& f : fs::directory_iterator(repo)) {
    if (f.path().extension() != ".json") continue;
    auto m = load_model_file(f.path().string());
    EXPECT_TRUE(m) << f.path() << ": " << (m ? "" : m.error().message());
    if (m) {
      EXPECT_GT(m->params_total(), 1e9) << f.path();
      EXPECT_LE(m->params_active(), m->params_total() + 1) << f.path();
    }
    ++n;
  }
  EXPECT_GE(n, 27);
  const fs::path shared = LLMECON_SHARED_DIR "/models/hf";
  if (fs::exists(shared)) {
    for (const auto& f : fs::directory_iterator(shared)) {
      if (f.path().extension() != ".json") continue;
      EXPECT_TRUE(fs::exists(repo / f.path().filename())) << f.path().filename() << " has no copy in data/models";
      auto m = load_model_file(f.path().string());
      EXPECT_TRUE(m) << f.path() << ": " << (m ? "" : m.error().message());
    }
  }
}

struct BadCase {
  const char* file;
  const char* field;
  const char* what;
};

TEST(Models, BadConfigsGiveLocatedErrors) {
  const BadCase cases[] = {
      {"truncated.json", "", "malformed JSON at byte 70"},
      {"missing_field.json", "num_hidden_layers", "missing required field"},
      {"zero_layers.json", "num_hidden_layers", "must be positive, got 0"},
      {"negative_hidden.json", "hidden_size", "must be positive, got -4096"},
      {"string_layers.json", "num_hidden_layers", "expected an integer, got string"},
      {"unknown_type.json", "model_type", "unsupported model_type 'rwkv7'"},
  };
  for (const auto& c : cases) {
    const std::string path = kData + "/" + c.file;
    auto m = load_model_file(path);
    ASSERT_FALSE(m) << c.file;
    EXPECT_EQ(m.error().where, path) << c.file;
    EXPECT_EQ(m.error().field, c.field) << c.file;
    EXPECT_EQ(m.error().what, c.what) << c.file;
  }
  EXPECT_FALSE(load_model_file(kData + "/nope.json"));
}

TEST(Models, ArchitectureStandsInForModelType) {
  // The validation set's Megatron GPT files name GPT2LMHeadModel and no model_type.
  auto m = load_model_file(kData + "/../../data/validation/models/megatron-gpt-175b.json");
  ASSERT_TRUE(m) << m.error().message();
  EXPECT_EQ(m->family, "gpt3");
  // Their notes give 174.62B parameters (12 L h^2 (1 + 13/(12h) + (V + s)/(12 L h))).
  EXPECT_NEAR(m->params_total() / 1e9, 174.62, 0.05);
}

TEST(Models, ResolveUnknownNameSuggests) {
  auto cat = ModelCatalog::builtin();
  auto r = cat->resolve("llama-3.1-7b", "--model");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "--model");
  EXPECT_NE(r.error().hint.find("llama-3.1-8b"), std::string::npos);
}

}  // namespace
}  // namespace llmecon
