// The stroke font of stroke_text.h: each glyph is polylines on a 4 x 6 grid (x 0..4, y 0..6 from the
// bottom left), written as two-digit points separated by spaces, polylines by '|'.
#include "warpmind/engine/stroke_text.h"

#include <cctype>

namespace warpmind::engine {

namespace {

const char* glyph(char c) {
  switch (std::toupper(static_cast<unsigned char>(c))) {
    case '0':
      return "00 40 46 06 00|05 41";
    case '1':
      return "15 26 20|10 30";
    case '2':
      return "06 46 43 03 00 40";
    case '3':
      return "06 46 40 00|03 43";
    case '4':
      return "06 03 43|46 40";
    case '5':
      return "46 06 03 33 42 41 30 00";
    case '6':
      return "46 06 00 40 43 03";
    case '7':
      return "06 46 10";
    case '8':
      return "00 40 46 06 00|03 43";
    case '9':
      return "40 46 06 03 43";
    case 'A':
      return "00 04 26 44 40|03 43";
    case 'B':
      return "00 06 36 45 44 33 03|33 42 41 30 00";
    case 'C':
      return "40 00 06 46";
    case 'D':
      return "00 06 26 45 41 20 00";
    case 'E':
      return "40 00 06 46|03 33";
    case 'F':
      return "00 06 46|03 33";
    case 'G':
      return "46 06 00 40 43 23";
    case 'H':
      return "00 06|40 46|03 43";
    case 'I':
      return "10 30|20 26|16 36";
    case 'J':
      return "46 41 30 10 01";
    case 'K':
      return "00 06|46 03 40";
    case 'L':
      return "06 00 40";
    case 'M':
      return "00 06 23 46 40";
    case 'N':
      return "00 06 40 46";
    case 'O':
      return "00 40 46 06 00";
    case 'P':
      return "00 06 46 43 03";
    case 'Q':
      return "00 40 46 06 00|22 40";
    case 'R':
      return "00 06 46 43 03 40";
    case 'S':
      return "46 06 03 43 40 00";
    case 'T':
      return "06 46|26 20";
    case 'U':
      return "06 00 40 46";
    case 'V':
      return "06 20 46";
    case 'W':
      return "06 00 23 40 46";
    case 'X':
      return "00 46|06 40";
    case 'Y':
      return "06 23 46|23 20";
    case 'Z':
      return "06 46 00 40";
    case '-':
      return "03 43";
    case '+':
      return "03 43|21 25";
    case '.':
      return "10 20 21 11 10";
    case ':':
      return "12 22|14 24";
    case '/':
      return "00 46";
    case '(':
      return "36 14 12 30";
    case ')':
      return "16 34 32 10";
    case '=':
      return "02 42|04 44";
    default:
      return "";
  }
}

}  // namespace

float stroke_text_width(std::string_view text, float height) {
  return static_cast<float>(text.size()) * 0.75f * height;
}

void stroke_text(std::string_view text, float x, float y, float height, std::uint32_t rgba,
                 std::vector<LineVertex>& out) {
  const float unit = height / 6.0f;
  for (char c : text) {
    bool have = false;
    LineVertex prev;
    for (const char* g = glyph(c); *g; ++g) {
      if (*g == '|') {
        have = false;
        continue;
      }
      if (*g == ' ') continue;
      const LineVertex v{x + static_cast<float>(g[0] - '0') * unit, y + static_cast<float>(g[1] - '0') * unit, rgba};
      ++g;  // a point is two digits
      if (have) {
        out.push_back(prev);
        out.push_back(v);
      }
      prev = v;
      have = true;
    }
    x += 0.75f * height;
  }
}

}  // namespace warpmind::engine
