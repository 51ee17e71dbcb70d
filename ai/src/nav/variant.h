// The variant a navigation call runs (nav.h's NavVariant): Auto resolved by the context, Gpu only on the
// CUDA backend. Shared by every call that has both.
#pragma once

#include "warpmind/core/context.h"
#include "warpmind/nav/nav.h"

namespace warpmind::nav::detail {

inline Status resolve(Context& ctx, NavVariant& variant) {
  if (variant == NavVariant::Auto) variant = ctx.cuda() ? NavVariant::Gpu : NavVariant::Cpu;
  if (variant == NavVariant::Gpu && !ctx.cuda()) return Status::Unavailable("nav: variant gpu needs the CUDA backend");
  if (variant != NavVariant::Cpu && variant != NavVariant::Gpu) return Status::Invalid("nav: unknown variant");
  return Status::Ok();
}

}  // namespace warpmind::nav::detail
