#include "warpmind/field/charge.h"

#include <cmath>
#include <initializer_list>
#include <vector>

namespace warpmind::field {

Status make_charge_kind(std::string name, std::span<const ChargeSegment> segments, ChargeKind& out) {
  if (segments.empty() || segments.size() > ChargeKind::kMaxSegments)
    return Status::Invalid("charge kind '" + name + "': needs 1.." + std::to_string(ChargeKind::kMaxSegments) +
                           " segments, got " + std::to_string(segments.size()));
  ChargeKind k;
  k.name = std::move(name);
  float prev = 0.0f;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const ChargeSegment& s = segments[i];
    const std::string where = "charge kind '" + k.name + "' segment " + std::to_string(i) + ": ";
    if (!std::isfinite(s.end) || !std::isfinite(s.slope) || !std::isfinite(s.intercept))
      return Status::Invalid(where + "end, slope and intercept must be finite");
    if (!(s.end > prev) && !(i == 0 && s.end > 0.0f)) return Status::Invalid(where + "end must be > 0 and increasing");
    const float far = std::fabs(s.intercept) + std::fabs(s.slope) * s.end;
    if (far > ChargeKind::kMaxMagnitude)
      return Status::Invalid(where + "|value| may reach " + std::to_string(far) + ", limit 1e6");
    k.end[i] = s.end;
    k.slope[i] = s.slope;
    k.intercept[i] = s.intercept;
    prev = s.end;
  }
  k.segments = static_cast<int>(segments.size());
  out = std::move(k);
  return Status::Ok();
}

namespace {
// Factories use constants that are valid by construction for sane parameters; a bad parameter gives an
// empty kind (segments == 0), which FieldLayers::create rejects with a message.
ChargeKind build(const char* name, std::initializer_list<ChargeSegment> segs) {
  ChargeKind k;
  std::vector<ChargeSegment> v(segs);
  if (!make_charge_kind(name, v, k).ok()) {
    k = ChargeKind{};
    k.name = name;
  }
  return k;
}
}  // namespace

ChargeKind circle(float radius) {
  // Figure 2.2 reaches (nearly) zero at 7.14; scale its argument so that happens at `radius`.
  const float s = 7.14f / radius;
  return build("circle", {{4.0f / s, 5.25f * s, -37.5f}, {radius, 3.5f * s, -25.0f}});
}

ChargeKind attack(float msd, float peak, float falloff) {
  // 100 d/MSD below MSD-1, 100 up to MSD, then falloff - (d - MSD) down to zero (Hagelbäck).
  const ChargeSegment tail{msd + falloff, -1.0f, falloff + msd};
  if (msd <= 1.0f) return build("attack", {{msd, 0.0f, peak}, tail});
  return build("attack", {{msd - 1.0f, peak / msd, 0.0f}, {msd, 0.0f, peak}, tail});
}

ChargeKind retreat(float range) { return build("retreat", {{range, 0.5f, -0.5f * range}}); }
ChargeKind own_unit(float radius, float value) { return build("own_unit", {{radius, 0.0f, value}}); }
ChargeKind obstacle(float radius, float value) { return build("obstacle", {{radius, 0.0f, value}}); }
ChargeKind trail(float radius, float value) { return build("trail", {{radius, 0.0f, value}}); }

Status charge_kind_from_name(const std::string& type, float param, ChargeKind& out) {
  if (!std::isfinite(param) || param <= 0.0f)
    return Status::Invalid("charge kind '" + type + "': parameter must be a positive number");
  if (type == "circle")
    out = circle(param);
  else if (type == "attack")
    out = attack(param);
  else if (type == "retreat")
    out = retreat(param);
  else if (type == "own_unit")
    out = own_unit(param);
  else if (type == "obstacle")
    out = obstacle(param);
  else if (type == "trail")
    out = trail(param);
  else
    return Status::Invalid("unknown charge kind type '" + type +
                           "' (circle, attack, retreat, own_unit, obstacle, trail)");
  if (out.segments == 0) return Status::Invalid("charge kind '" + type + "': parameter out of range");
  return Status::Ok();
}

}  // namespace warpmind::field
