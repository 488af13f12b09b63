#include "storage/postgres/pg_values.h"

#include <libpq-fe.h>

#include <bit>
#include <charconv>
#include <cstring>

namespace mnemo::storage::internal::pg {
namespace {

// A number as text: a double in the fewest digits that read back to the
// same bits.
template <typename Number>
void AppendNumber(std::string& out, Number value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, end);
}

template <typename Number>
void AppendNumberArray(std::string& out, std::span<const Number> items) {
  out += '{';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    AppendNumber(out, items[i]);
  }
  out += '}';
}

// Element of an array literal: always quoted, " and \ escaped.
void AppendArrayElement(std::string& out, std::string_view item) {
  out += '"';
  for (char c : item) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}

}  // namespace

void AppendCopyField(std::string& out, const std::optional<std::string_view>& value) {
  if (!value) {
    out += "\\N";
    return;
  }
  // The runs between escapes are appended whole: a character at a time was
  // the largest part of formatting a bulk write's rows.
  const std::string_view v = *value;
  size_t from = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const char* escaped = nullptr;
    switch (v[i]) {
      case '\\': escaped = "\\\\"; break;
      case '\t': escaped = "\\t"; break;
      case '\n': escaped = "\\n"; break;
      case '\r': escaped = "\\r"; break;
      default: continue;
    }
    out.append(v.substr(from, i - from));
    out += escaped;
    from = i + 1;
  }
  out.append(v.substr(from));
}

void AppendQuotedLexeme(std::string& out, std::string_view lexeme) {
  out += '\'';
  size_t from = 0;
  for (size_t i = 0; i < lexeme.size(); ++i) {
    if (lexeme[i] != '\'' && lexeme[i] != '\\') continue;
    out.append(lexeme.substr(from, i - from));
    out += '\\';
    from = i;  // the character itself goes with the next run
  }
  out.append(lexeme.substr(from));
  out += '\'';
}

void AppendBigEndian16(std::string& out, uint16_t value) {
  const char bytes[2] = {static_cast<char>(value >> 8), static_cast<char>(value)};
  out.append(bytes, 2);
}

void AppendBigEndian32(std::string& out, uint32_t value) {
  const char bytes[4] = {static_cast<char>(value >> 24), static_cast<char>(value >> 16),
                         static_cast<char>(value >> 8), static_cast<char>(value)};
  out.append(bytes, 4);
}

void AppendCopyBinaryHeader(std::string& out) {
  // The signature (with its NUL), no flags, no header extension.
  out.append("PGCOPY\n\377\r\n\0", 11);
  AppendBigEndian32(out, 0);
  AppendBigEndian32(out, 0);
}

void AppendCopyBinaryTrailer(std::string& out) { AppendBigEndian16(out, 0xFFFF); }

void AppendCopyBinaryFieldCount(std::string& out, int16_t fields) {
  AppendBigEndian16(out, static_cast<uint16_t>(fields));
}

void AppendCopyBinaryNull(std::string& out) { AppendBigEndian32(out, 0xFFFFFFFF); }

void AppendCopyBinaryLength(std::string& out, size_t size) {
  AppendBigEndian32(out, static_cast<uint32_t>(size));
}

void AppendCopyBinaryText(std::string& out, std::string_view text) {
  AppendCopyBinaryLength(out, text.size());
  out.append(text);
}

void AppendCopyBinaryInt8(std::string& out, int64_t value) {
  AppendCopyBinaryLength(out, 8);
  const auto bits = static_cast<uint64_t>(value);
  AppendBigEndian32(out, static_cast<uint32_t>(bits >> 32));
  AppendBigEndian32(out, static_cast<uint32_t>(bits));
}

void AppendCopyBinaryBool(std::string& out, bool value) {
  AppendCopyBinaryLength(out, 1);
  out += value ? '\1' : '\0';
}

void AppendCopyBinaryTextArray(std::string& out, std::span<const std::string> items) {
  constexpr uint32_t kTextOid = 25;  // pg_type's text
  size_t size = 12;
  if (!items.empty()) size += 8;
  for (const std::string& item : items) size += 4 + item.size();
  AppendCopyBinaryLength(out, size);
  AppendBigEndian32(out, items.empty() ? 0 : 1);  // dimensions
  AppendBigEndian32(out, 0);                      // no NULLs
  AppendBigEndian32(out, kTextOid);
  if (!items.empty()) {
    AppendBigEndian32(out, static_cast<uint32_t>(items.size()));
    AppendBigEndian32(out, 1);  // lower bound
  }
  for (const std::string& item : items) AppendCopyBinaryText(out, item);
}

std::string QuoteLexeme(std::string_view lexeme) {
  std::string out;
  AppendQuotedLexeme(out, lexeme);
  return out;
}

// --- Params ---

const char* const* Params::values() const {
  if (pointers_.size() != offsets_.size()) {
    pointers_.clear();
    pointers_.reserve(offsets_.size());
    for (const size_t at : offsets_) pointers_.push_back(at == kNull ? nullptr : &buffer_[at]);
  }
  return pointers_.data();
}

Params& Params::Add(std::string_view text) {
  Begin();
  buffer_ += text;
  End();
  return *this;
}
Params& Params::Add(int64_t value) {
  Begin();
  AppendNumber(buffer_, value);
  End();
  return *this;
}
Params& Params::Add(double value) {
  Begin();
  AppendNumber(buffer_, value);
  End();
  return *this;
}
Params& Params::Add(bool value) { return Add(std::string_view(value ? "true" : "false")); }
Params& Params::AddNull() {
  offsets_.push_back(kNull);
  pointers_.clear();
  return *this;
}
Params& Params::Add(const std::optional<std::string>& text) {
  return text ? Add(std::string_view(*text)) : AddNull();
}

namespace {

void AppendTextArray(std::string& out, std::span<const std::string> items) {
  out += '{';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    AppendArrayElement(out, items[i]);
  }
  out += '}';
}

}  // namespace

Params& Params::AddTextArray(std::span<const std::string> items) {
  Begin();
  AppendTextArray(buffer_, items);
  End();
  return *this;
}
Params& Params::AddIntArray(std::span<const int64_t> items) {
  Begin();
  AppendNumberArray(buffer_, items);
  End();
  return *this;
}
Params& Params::AddDoubleArray(std::span<const double> items) {
  Begin();
  AppendNumberArray(buffer_, items);
  End();
  return *this;
}
Params& Params::AddBytes(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  Begin();
  buffer_.reserve(buffer_.size() + 3 + bytes.size() * 2);
  buffer_ += "\\x";
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    buffer_ += kHex[byte >> 4];
    buffer_ += kHex[byte & 0xF];
  }
  End();
  return *this;
}

Params& Params::AddFloats(std::span<const float> v) {
  // float32 little-endian, as the SQLite blobs.
  std::string bytes(v.size() * 4, '\0');
  for (size_t i = 0; i < v.size(); ++i) {
    const auto bits = std::bit_cast<uint32_t>(v[i]);
    for (size_t b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<char>((bits >> (8 * b)) & 0xFF);
  }
  return AddBytes(bytes);
}

// --- Rows ---

Rows::Rows(pg_result* result) : result_(result) {}
Rows::Rows(Rows&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }
Rows& Rows::operator=(Rows&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) PQclear(result_);
    result_ = other.result_;
    other.result_ = nullptr;
  }
  return *this;
}
Rows::~Rows() {
  if (result_ != nullptr) PQclear(result_);
}

int Rows::size() const { return result_ == nullptr ? 0 : PQntuples(result_); }

int64_t Rows::affected() const {
  const char* n = result_ == nullptr ? nullptr : PQcmdTuples(result_);
  return n == nullptr || *n == '\0' ? 0 : std::strtoll(n, nullptr, 10);
}

bool Rows::IsNull(int row, int col) const { return PQgetisnull(result_, row, col) != 0; }

std::string_view Rows::Text(int row, int col) const {
  return {PQgetvalue(result_, row, col), static_cast<size_t>(PQgetlength(result_, row, col))};
}

bool Rows::Binary(int col) const { return PQfformat(result_, col) == 1; }

int64_t Rows::Int(int row, int col) const {
  if (IsNull(row, col)) return 0;
  if (Binary(col)) {
    // int2, int4 or int8, big-endian two's complement.
    const std::string_view raw = Text(row, col);
    uint64_t bits = 0;
    for (const char c : raw) bits = bits << 8 | static_cast<unsigned char>(c);
    const int shift = 64 - 8 * static_cast<int>(raw.size());
    return shift <= 0 || shift >= 64 ? static_cast<int64_t>(bits)
                                     : static_cast<int64_t>(bits << shift) >> shift;
  }
  const std::string_view text = Text(row, col);
  int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

double Rows::Double(int row, int col) const {
  if (IsNull(row, col)) return 0;
  if (Binary(col)) {
    // float8 or float4, big-endian IEEE 754.
    const std::string_view raw = Text(row, col);
    uint64_t bits = 0;
    for (const char c : raw) bits = bits << 8 | static_cast<unsigned char>(c);
    if (raw.size() == 4) return std::bit_cast<float>(static_cast<uint32_t>(bits));
    return std::bit_cast<double>(bits);
  }
  // from_chars rounds correctly, as strtod does (the same bits), and reads
  // PostgreSQL's Infinity, -Infinity and NaN; it has no locale to consult.
  const std::string_view text = Text(row, col);
  double value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

bool Rows::Bool(int row, int col) const {
  if (IsNull(row, col)) return false;
  const char first = PQgetvalue(result_, row, col)[0];
  return Binary(col) ? first != 0 : first == 't';
}

std::string Rows::Bytes(int row, int col) const {
  if (Binary(col)) return std::string(Text(row, col));  // the bytes themselves
  std::string_view hex = Text(row, col);                // \x0a1b...
  if (hex.starts_with("\\x")) hex.remove_prefix(2);
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<char>(HexValue(hex[2 * i]) << 4 | HexValue(hex[2 * i + 1]));
  }
  return out;
}

std::vector<float> Rows::Floats(int row, int col) const {
  std::string decoded;
  std::string_view bytes = Text(row, col);
  if (!Binary(col)) {
    decoded = Bytes(row, col);
    bytes = decoded;
  }
  std::vector<float> out(bytes.size() / 4);
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out.data(), bytes.data(), out.size() * 4);
    return out;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t bits = 0;
    for (size_t b = 0; b < 4; ++b) {
      bits |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i * 4 + b])) << (8 * b);
    }
    out[i] = std::bit_cast<float>(bits);
  }
  return out;
}

std::vector<std::string> Rows::TextArray(int row, int col) const {
  // {a,"b c",NULL}: elements quoted when needed, \ escapes inside quotes.
  std::vector<std::string> out;
  std::string_view s = Text(row, col);
  if (s.size() < 2) return out;
  s = s.substr(1, s.size() - 2);
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '"') {
      std::string item;
      ++i;
      while (i < s.size() && s[i] != '"') {
        // The run up to the next quote or backslash at once.
        const size_t stop = s.find_first_of("\"\\", i);
        const size_t end = stop == std::string_view::npos ? s.size() : stop;
        item.append(s.substr(i, end - i));
        i = end;
        if (i < s.size() && s[i] == '\\') {
          if (i + 1 < s.size()) ++i;
          item += s[i++];
        }
      }
      ++i;  // closing quote
      out.push_back(std::move(item));
    } else {
      const size_t comma = s.find(',', i);
      const size_t end = comma == std::string_view::npos ? s.size() : comma;
      out.emplace_back(s.substr(i, end - i));
      i = end;
    }
    if (i < s.size() && s[i] == ',') ++i;
  }
  return out;
}

}  // namespace mnemo::storage::internal::pg
