// The JSON of a training layout (encode.hpp).
#include "io/encode.hpp"

namespace llmecon {

Json to_json(const TrainLayout& l) {
  return {{"tp", l.tp},
          {"pp", l.pp},
          {"ep", l.ep},
          {"cp", l.cp},
          {"dp", l.dp},
          {"zero", l.zero},
          {"recompute", std::string(name(l.recompute))},
          {"recompute_modules", l.recompute == Recompute::kSelective ? recompute_modules_name(l.modules) : ""},
          {"schedule", std::string(name(l.schedule))},
          {"chunks", l.chunks},
          {"micro_batch", l.micro_batch},
          {"text", l.str()}};
}

}  // namespace llmecon
