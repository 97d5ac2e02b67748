// reports/text_table.h: aligned columns, with colour that never moves them.
#include <gtest/gtest.h>

#include "text_table.h"

namespace mxconform::reports {
namespace {

TEST(TextTable, AlignsLeftAndRight) {
  TextTable table({">k", "value", "note"});
  table.add_row({"0", "1.5", "tie"});
  table.add_row({"12", "-0.25"});
  EXPECT_EQ(table.render("  ", false),
            "   k  value  note\n"
            "   0  1.5    tie\n"
            "  12  -0.25\n");
}

TEST(TextTable, ColourWrapsCellsWithoutMovingColumns) {
  TextTable table({"a", "b"});
  table.add_row({Cell("x", Style::kBad), "y"});
  const std::string coloured = table.render("", true);
  EXPECT_EQ(coloured, "\033[2ma\033[0m  \033[2mb\033[0m\n\033[1;31mx\033[0m  y\n");
  EXPECT_EQ(table.render("", false), "a  b\nx  y\n");
  EXPECT_EQ(styled("t", Style::kWarn, false), "t");
  EXPECT_THROW(table.add_row({"1", "2", "3"}), std::logic_error);
}

TEST(TextTable, NoColourWithoutATerminal) {
  EXPECT_FALSE(colour_wanted(-1));
}

}  // namespace
}  // namespace mxconform::reports
