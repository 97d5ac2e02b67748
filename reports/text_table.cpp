#include "text_table.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace mxconform::reports {
namespace {

constexpr const char* kReset = "\033[0m";
constexpr const char* kColumnGap = "  ";

const char* ansi(Style style) {
  switch (style) {
    case Style::kPlain: return "";
    case Style::kHeading: return "\033[1m";
    case Style::kDim: return "\033[2m";
    case Style::kGood: return "\033[32m";
    case Style::kNote: return "\033[36m";
    case Style::kWarn: return "\033[33m";
    case Style::kBad: return "\033[1;31m";
  }
  return "";
}

}  // namespace

bool colour_wanted(int fd) { return ::isatty(fd) == 1 && std::getenv("NO_COLOR") == nullptr; }

std::string styled(const std::string& text, Style style, bool colour) {
  if (!colour || style == Style::kPlain || text.empty()) return text;
  return ansi(style) + text + kReset;
}

TextTable::TextTable(std::vector<std::string> headers) {
  for (std::string& header : headers) {
    const bool right = !header.empty() && header[0] == '>';
    right_.push_back(right);
    headers_.push_back(right ? header.substr(1) : header);
  }
}

void TextTable::add_row(std::vector<Cell> cells) {
  if (cells.size() > headers_.size()) throw std::logic_error("TextTable: a row has more cells than the header");
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(const std::string& indent, bool colour) const {
  std::vector<std::size_t> width(headers_.size());
  for (std::size_t i = 0; i < headers_.size(); ++i) {
    width[i] = headers_[i].size();
    for (const auto& row : rows_) width[i] = std::max(width[i], row[i].text.size());
  }
  const auto line = [&](const std::vector<Cell>& cells) {
    std::string text = indent;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(width[i] - cells[i].text.size(), ' ');
      const bool last = i + 1 == cells.size();
      const std::string cell = styled(cells[i].text, cells[i].style, colour);
      text += right_[i] ? pad + cell : cell + (last ? "" : pad);
      if (!last) text += kColumnGap;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  std::vector<Cell> header;
  for (const std::string& h : headers_) header.emplace_back(h, Style::kDim);
  std::string out = line(header);
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace mxconform::reports
