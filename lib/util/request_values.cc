#include "lib/util/request_values.h"

#include <fstream>

#include "lib/util/ascii.h"

namespace dirload {

Result<std::vector<std::string>> ReadRequestValues(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open the file");
  std::vector<std::string> values;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) values.push_back(std::move(line));
  }
  if (in.bad()) return Status::IoError(path + ": read error");
  if (values.empty()) return Status::InvalidArgument(path + ": no values (one per line)");
  return values;
}

std::string FillFilterTemplate(std::string_view filter_template, std::string_view value, bool raw) {
  std::string escaped;
  if (raw) {
    escaped = value;
  } else {
    for (unsigned char c : value) {
      if (c == '*' || c == '(' || c == ')' || c == '\\' || c == 0) {
        escaped += '\\';
        AppendHexByte(c, &escaped);
      } else {
        escaped += static_cast<char>(c);
      }
    }
  }
  std::string out;
  size_t p = 0;
  for (size_t at; (at = filter_template.find("%s", p)) != std::string_view::npos; p = at + 2) {
    out.append(filter_template, p, at - p);
    out += escaped;
  }
  out.append(filter_template, p, std::string_view::npos);
  return out;
}

}  // namespace dirload
