#pragma once
// Aligned columns for terminal reports, with optional ANSI colour per cell. Widths are measured on
// the plain text, so colour never disturbs the alignment.
#include <string>
#include <vector>

namespace mxconform::reports {

enum class Style { kPlain, kHeading, kDim, kGood, kNote, kWarn, kBad };

// True when output to file descriptor `fd` should be coloured: it is a terminal and NO_COLOR is
// not set (https://no-color.org).
bool colour_wanted(int fd);

// `text` wrapped in the ANSI sequence of `style` when `colour`, else unchanged.
std::string styled(const std::string& text, Style style, bool colour);

struct Cell {
  std::string text;
  Style style = Style::kPlain;
  Cell(std::string t = {}, Style s = Style::kPlain) : text(std::move(t)), style(s) {}  // NOLINT: implicit from text
  Cell(const char* t, Style s = Style::kPlain) : text(t), style(s) {}                  // NOLINT
};

class TextTable {
 public:
  // One header per column; a column whose header starts with '>' is right-aligned (the '>' is
  // not printed).
  explicit TextTable(std::vector<std::string> headers);
  // Rows shorter than the header are padded with empty cells; longer rows are an error.
  void add_row(std::vector<Cell> cells);
  // Every row on its own line after `indent`, columns two spaces apart, the header dimmed.
  std::string render(const std::string& indent, bool colour) const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<std::vector<Cell>> rows_;
};

}  // namespace mxconform::reports
