// The slider tables of chess_sliders.h, built once on the host.
#include "search/chess/chess_sliders.h"

#include <vector>

namespace warpmind::search::chess::rules {
namespace {

// The multipliers, rooks' then bishops', square by square (a1 = 0 ... h8 = 63). Each maps every subset
// of its square's relevant mask (popcount(mask) bits of index) without a harmful collision.
constexpr Bits kMultiplier[128] = {
    0x008000908064c000ull, 0x0040200040001000ull, 0x0180100080a0010aull, 0x8880041000800800ull, 0x1200100201200804ull,
    0x0200020004011008ull, 0x2180010000800600ull, 0x0200005088210204ull, 0x0400800040008021ull, 0x0400400020005000ull,
    0x8240801000200080ull, 0x8611001004200900ull, 0x008180800c001800ull, 0x0100800200800400ull, 0x0a02000102000408ull,
    0x8020802300104280ull, 0x0080004000402000ull, 0xe010104000402000ull, 0x0800808010002000ull, 0xa280210008100100ull,
    0x0001818014000800ull, 0xa002010100080400ull, 0x0080240001020870ull, 0x0001020004048845ull, 0x0081826280004004ull,
    0x2020810900284000ull, 0x0200100080802000ull, 0x0200080080100080ull, 0x8083080100100500ull, 0x4406000901000400ull,
    0x0005020080800100ull, 0x0090204200008114ull, 0x0010400094800420ull, 0x0900804000802002ull, 0x0201001841002000ull,
    0x4100080080801000ull, 0x4540040080800800ull, 0x0002001004040020ull, 0x0281195814001002ull, 0x1240800040800100ull,
    0x0880042000524004ull, 0x02c080410206002cull, 0x0801200241050010ull, 0x8400080010008080ull, 0x0008000500090010ull,
    0x0082009084020008ull, 0x4012000108020004ull, 0x9000104d08860004ull, 0x2004204114800100ull, 0x0148802112400300ull,
    0x0202842000100880ull, 0x001b080080900080ull, 0x001a002008100600ull, 0x0004008004020080ull, 0x5181000600040300ull,
    0x0000044401128a00ull, 0x8044110480002441ull, 0x2008110084402202ull, 0x90806005090010c1ull, 0x000420310a004a42ull,
    0x0023001004020801ull, 0x0882001008040102ull, 0x000230088118020cull, 0x0000019025040042ull, 0x0045010808008680ull,
    0x2002080204004898ull, 0x0210009a10400006ull, 0x0824050200810200ull, 0x0006061105004090ull, 0x00010108c0000000ull,
    0x0814040282104004ull, 0x0012012201106800ull, 0x10823014100c1040ull, 0x0080c2088802808cull, 0x0281108410404000ull,
    0x0101212041826200ull, 0x0020141028221058ull, 0x2201020202200202ull, 0x000082a801482000ull, 0x0000008401411044ull,
    0x0007103014300404ull, 0x0002091110010100ull, 0x42140012040c0808ull, 0x0800808802004020ull, 0x90c4004210140000ull,
    0x0800200900a01000ull, 0x00d0400201108810ull, 0x80820183814412a0ull, 0x00a01008202202b4ull, 0x01c2021a09500402ull,
    0x0084440208042400ull, 0x800400400c090100ull, 0xba10040010802100ull, 0xd182009006005000ull, 0x5011021001009004ull,
    0x0020420200510400ull, 0x0292104000468800ull, 0x00043009091c0500ull, 0x0280441000020025ull, 0x0042820080080080ull,
    0x0440101010010040ull, 0x1000900100808080ull, 0x0108108120089800ull, 0x0044010200012682ull, 0xc002500420900400ull,
    0x0040482210710800ull, 0x0002060024000200ull, 0x0281020a44000800ull, 0xa0021200a4000200ull, 0x0001301000840840ull,
    0x2868500108444220ull, 0x0004111041000200ull, 0x8044020842080200ull, 0x0000220104210200ull, 0x0000021201044000ull,
    0x0000280884040028ull, 0x4012114010858003ull, 0x0000081004082b88ull, 0x3892700508208002ull, 0x00220a041b060400ull,
    0x0812020284014881ull, 0x010434a282103100ull, 0x0490400824020800ull, 0x4a20002c00208800ull, 0x000000a011020200ull,
    0x4002940a02482202ull, 0x5100100202140406ull, 0x02102000840540c1ull,
};

constexpr int kStepRank[2][4] = {{1, -1, 0, 0}, {1, 1, -1, -1}}, kStepFile[2][4] = {{0, 0, 1, -1}, {1, -1, 1, -1}};

// Attacks of a rook (kind 0) or bishop (kind 1) on sq, square by square; with `relevant`, the mask: the
// lines without their last square.
Bits walk(int sq, Bits occ, int kind, bool relevant) {
  Bits a = 0;
  for (int d = 0; d < 4; ++d) {
    for (int r = (sq >> 3) + kStepRank[kind][d], f = (sq & 7) + kStepFile[kind][d]; r >= 0 && r < 8 && f >= 0 && f < 8;
         r += kStepRank[kind][d], f += kStepFile[kind][d]) {
      const int nr = r + kStepRank[kind][d], nf = f + kStepFile[kind][d];
      if (relevant && (nr < 0 || nr > 7 || nf < 0 || nf > 7)) break;
      a |= bit(r * 8 + f);
      if (occ & bit(r * 8 + f)) break;
    }
  }
  return a;
}

std::vector<Bits> build() {
  std::vector<Bits> w(SliderTables::kWords, 0);
  const SliderTables t = slider_tables_at(w.data());
  Bits* attacks = w.data() + (t.attacks - w.data());
  std::size_t offset = 0;
  for (int entry = 0; entry < 128; ++entry) {
    const int sq = entry & 63, kind = entry >> 6;
    const Bits mask = walk(sq, 0, kind, true);
    const int bits = popcnt(mask);
    const int shift = 64 - bits;
    w[4 * entry] = mask;
    w[4 * entry + 1] = kMultiplier[entry];
    w[4 * entry + 2] = static_cast<Bits>(offset) << 6 | static_cast<Bits>(shift);
    w[4 * entry + 3] = walk(sq, 0, kind, false);
    Bits sub = 0;
    do {  // every subset of the mask
      attacks[offset + ((sub * kMultiplier[entry]) >> shift)] = walk(sq, sub, kind, false);
      sub = (sub - mask) & mask;
    } while (sub);
    offset += std::size_t{1} << bits;
  }
  Bits* between = w.data() + (t.between - w.data());
  for (int a = 0; a < 64; ++a)
    for (int kind = 0; kind < 2; ++kind)
      for (Bits s = walk(a, 0, kind, false); s; s &= s - 1) {
        const int b = lsb(s);
        between[a * 64 + b] = walk(a, bit(b), kind, false) & walk(b, bit(a), kind, false);
      }
  Bits* leaper = w.data() + (t.leaper - w.data());
  for (int sq = 0; sq < 64; ++sq) {
    leaper[sq] = knight_attacks(bit(sq));
    leaper[64 + sq] = king_attacks(bit(sq));
    leaper[128 + sq] = pawn_attacks(kWhite, bit(sq));
    leaper[192 + sq] = pawn_attacks(kBlack, bit(sq));
  }
  return w;
}

}  // namespace

const Bits* host_slider_words() {
  static const std::vector<Bits> words = build();  // 16-byte aligned: operator new's alignment
  return words.data();
}

}  // namespace warpmind::search::chess::rules
