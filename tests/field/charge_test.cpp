#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "field/field_math.h"
#include "warpmind/field/charge.h"

namespace warpmind::field {
namespace {

TEST(Charge, CircleIsTheSeedsFigure22AtItsNativeRadius) {
  const ChargeKind k = circle(7.14f);
  EXPECT_FLOAT_EQ(k.cutoff(), 7.14f);
  EXPECT_FLOAT_EQ(k.value(0.0f), -37.5f);
  EXPECT_FLOAT_EQ(k.value(2.0f), 5.25f * 2 - 37.5f);
  EXPECT_FLOAT_EQ(k.value(4.0f), 5.25f * 4 - 37.5f);
  EXPECT_FLOAT_EQ(k.value(5.0f), 3.5f * 5 - 25.0f);
  EXPECT_NEAR(k.value(7.14f), -0.01f, 1e-4f);
  EXPECT_EQ(k.value(7.15f), 0.0f);
}

TEST(Charge, CircleScalesWithRadius) {
  const ChargeKind k = circle(15.0f);
  EXPECT_FLOAT_EQ(k.cutoff(), 15.0f);
  EXPECT_FLOAT_EQ(k.value(0.0f), -37.5f);
  EXPECT_NEAR(k.value(15.0f), -0.01f, 1e-3f);
  EXPECT_EQ(k.value(15.01f), 0.0f);
  // Monotone rise towards zero across both segments.
  for (float d = 0.0f; d < 15.0f; d += 0.25f) EXPECT_LE(k.value(d), k.value(d + 0.25f) + 1e-4f) << d;
}

TEST(Charge, HagelbackAttackPeaksAtShootingDistance) {
  const ChargeKind k = attack(5.0f);
  EXPECT_FLOAT_EQ(k.value(3.0f), 60.0f);   // 100 d / MSD below MSD - 1
  EXPECT_FLOAT_EQ(k.value(4.5f), 100.0f);  // peak between MSD - 1 and MSD
  EXPECT_FLOAT_EQ(k.value(5.0f), 100.0f);
  EXPECT_FLOAT_EQ(k.value(10.0f), 75.0f);  // 80 - (d - MSD) beyond
  EXPECT_FLOAT_EQ(k.value(84.0f), 1.0f);
  EXPECT_EQ(k.value(85.5f), 0.0f);
  EXPECT_FLOAT_EQ(k.cutoff(), 85.0f);
}

TEST(Charge, RetreatOwnUnitObstacleTrail) {
  EXPECT_FLOAT_EQ(retreat().value(0.0f), -40.0f);
  EXPECT_FLOAT_EQ(retreat().value(40.0f), -20.0f);
  EXPECT_EQ(retreat().value(81.0f), 0.0f);
  EXPECT_FLOAT_EQ(own_unit().value(1.9f), -25.0f);
  EXPECT_EQ(own_unit().value(2.1f), 0.0f);
  EXPECT_FLOAT_EQ(obstacle().value(0.5f), -1000.0f);
  EXPECT_FLOAT_EQ(trail().value(1.0f), -10.0f);
}

TEST(Charge, MakeChargeKindValidates) {
  ChargeKind k;
  const std::vector<ChargeSegment> none;
  EXPECT_FALSE(make_charge_kind("a", none, k).ok());
  const std::vector<ChargeSegment> decreasing = {{4, 0, 1}, {3, 0, 1}};
  EXPECT_NE(make_charge_kind("a", decreasing, k).message().find("increasing"), std::string::npos);
  const std::vector<ChargeSegment> nan = {{4, NAN, 1}};
  EXPECT_FALSE(make_charge_kind("a", nan, k).ok());
  const std::vector<ChargeSegment> huge = {{4, 0, 2e6f}};
  EXPECT_FALSE(make_charge_kind("a", huge, k).ok());
  const std::vector<ChargeSegment> five = {{1, 0, 1}, {2, 0, 1}, {3, 0, 1}, {4, 0, 1}, {5, 0, 1}};
  EXPECT_FALSE(make_charge_kind("a", five, k).ok());
  const std::vector<ChargeSegment> good = {{1, 0, 5}, {2, -1, 3}};
  ASSERT_TRUE(make_charge_kind("good", good, k).ok());
  EXPECT_EQ(k.segments, 2);
  EXPECT_FLOAT_EQ(k.value(1.5f), 1.5f);
}

TEST(Charge, FromName) {
  ChargeKind k;
  EXPECT_TRUE(charge_kind_from_name("attack", 7.0f, k).ok());
  EXPECT_FLOAT_EQ(k.cutoff(), 87.0f);
  EXPECT_FALSE(charge_kind_from_name("laser", 7.0f, k).ok());
  EXPECT_FALSE(charge_kind_from_name("circle", -1.0f, k).ok());
  EXPECT_FALSE(charge_kind_from_name("circle", NAN, k).ok());
}

TEST(Charge, TableMatchesDirectEvaluationAndIsZeroPadded) {
  FieldConfig c;
  c.world = {0, 0, 100, 50};
  c.width = 64;
  c.height = 48;  // anisotropic cells
  const detail::Grid g = detail::make_grid(c);
  const ChargeKind k = circle(9.0f);
  const detail::KindTable t = detail::make_table(k, g);
  EXPECT_GE(t.rx * g.cw, 9.0f);
  EXPECT_GE(t.ry * g.ch, 9.0f);
  for (int y = 0; y <= t.ry + 1; ++y) {
    EXPECT_EQ(t.at(t.rx + 1, y), 0);
    for (int x = 0; x <= t.rx + 1; ++x) {
      if (y == t.ry + 1) {
        EXPECT_EQ(t.at(x, y), 0);
      } else if (x <= t.rx) {
        EXPECT_EQ(t.at(x, y), detail::quantize(k.value(detail::cell_distance(x, y, g))));
      }
    }
  }
  EXPECT_EQ(t.max_abs_q, detail::quantize(37.5f));
}

TEST(Charge, CircleAtItsRadiusInSinglePrecision) {
  // The factory keeps the seed's constants and scales the argument by s = 7.14f / radius, in float: the
  // curve ends at about -0.01 (as the seed's does at 7.14), not at zero, and is zero past the radius.
  struct Case {
    float radius, at_radius, just_inside;
  };
  for (const Case& c : {Case{4.0f, -0.0100002289f, -0.0100021362f}, Case{8.0f, -0.0100002289f, -0.0100021362f},
                        Case{15.0f, -0.0100021362f, -0.0100040436f}, Case{7.14f, -0.0100002289f, -0.0100021362f}}) {
    SCOPED_TRACE(c.radius);
    const ChargeKind k = circle(c.radius);
    ASSERT_EQ(k.segments, 2);
    const float s = 7.14f / c.radius;
    EXPECT_EQ(k.end[0], 4.0f / s);
    EXPECT_EQ(k.slope[0], 5.25f * s);
    EXPECT_EQ(k.intercept[0], -37.5f);
    EXPECT_EQ(k.end[1], c.radius);
    EXPECT_EQ(k.slope[1], 3.5f * s);
    EXPECT_EQ(k.intercept[1], -25.0f);
    EXPECT_EQ(k.value(0.0f), -37.5f);
    EXPECT_EQ(k.value(c.radius), c.at_radius);
    EXPECT_EQ(k.value(std::nextafter(c.radius, 0.0f)), c.just_inside);
    EXPECT_EQ(k.value(std::nextafter(c.radius, 1e9f)), 0.0f);
    // In a field that is -10 steps of 2^-10.
    EXPECT_EQ(detail::quantize(k.value(c.radius)), -10);
    EXPECT_EQ(detail::quantize(k.value(std::nextafter(c.radius, 0.0f))), -10);
  }
  // Over a wide range of radii the end value stays within [-0.010004, -0.009998], so always -10 steps.
  for (float r = 1e-3f; r < 1e5f; r *= 1.37f) {
    const float u = circle(r).value(r);
    EXPECT_GE(u, -0.010005f) << r;
    EXPECT_LE(u, -0.009998f) << r;
    EXPECT_EQ(detail::quantize(u), -10) << r;
  }
}

TEST(Charge, QuantizeRoundsTiesToEven) {
  // The host half of the rounding rule (the device's __float2int_rn is held to it in field_variants_test).
  EXPECT_EQ(detail::quantize(0.5f / 1024), 0);
  EXPECT_EQ(detail::quantize(1.5f / 1024), 2);
  EXPECT_EQ(detail::quantize(2.5f / 1024), 2);
  EXPECT_EQ(detail::quantize(3.5f / 1024), 4);
  EXPECT_EQ(detail::quantize(-0.5f / 1024), 0);
  EXPECT_EQ(detail::quantize(-1.5f / 1024), -2);
  EXPECT_EQ(detail::quantize(-2.5f / 1024), -2);
  EXPECT_EQ(detail::quantize(1000.5f / 1024), 1000);
  EXPECT_EQ(detail::quantize(1001.5f / 1024), 1002);
  EXPECT_EQ(detail::quantize(std::nextafter(2.5f / 1024, 1.0f)), 3);  // just above a tie: nearest
  EXPECT_EQ(detail::quantize(std::nextafter(2.5f / 1024, 0.0f)), 2);
}

}  // namespace
}  // namespace warpmind::field
