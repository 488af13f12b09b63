// The values a PostgreSQL statement sends and reads back: its parameters
// (Params, all in text format), the rows of its result (Rows, text or
// binary per column), and the literals the statements are built with (text
// arrays, COPY fields, tsquery/tsvector lexemes). The connection that sends
// them is pg_connection.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct pg_result;

namespace mnemo::storage::internal::pg {

// Query parameters, $1, $2, ... in the order added, all in text format.
// The values sit in one buffer, each ending in a NUL (a search adds a dozen
// or more: one allocation, not one per value).
class Params {
 public:
  Params() = default;
  // A copy or a move points at its own buffer: values() is worked out anew.
  Params(const Params& other) : buffer_(other.buffer_), offsets_(other.offsets_) {}
  Params& operator=(const Params& other) {
    buffer_ = other.buffer_;
    offsets_ = other.offsets_;
    pointers_.clear();
    return *this;
  }
  Params(Params&& other) noexcept
      : buffer_(std::move(other.buffer_)), offsets_(std::move(other.offsets_)) {
    other.pointers_.clear();
  }
  Params& operator=(Params&& other) noexcept {
    buffer_ = std::move(other.buffer_);
    offsets_ = std::move(other.offsets_);
    pointers_.clear();
    other.pointers_.clear();
    return *this;
  }
  ~Params() = default;

  Params& Add(std::string_view text);
  Params& Add(const char* text) { return Add(std::string_view(text)); }
  Params& Add(const std::string& text) { return Add(std::string_view(text)); }
  Params& Add(int64_t value);
  Params& Add(int value) { return Add(static_cast<int64_t>(value)); }
  Params& Add(double value);
  Params& Add(bool value);
  Params& AddNull();
  Params& Add(const std::optional<std::string>& text);
  // A text[] literal ({"a","b"}) of `items`.
  Params& AddTextArray(std::span<const std::string> items);
  Params& AddIntArray(std::span<const int64_t> items);
  Params& AddDoubleArray(std::span<const double> items);
  // `bytes` as a bytea (hex input form), byte for byte.
  Params& AddBytes(std::string_view bytes);
  // float32 little-endian bytes as a bytea.
  Params& AddFloats(std::span<const float> v);

  int size() const { return static_cast<int>(offsets_.size()); }
  // One pointer per value (nullptr for NULL), valid until the next Add.
  const char* const* values() const;

 private:
  static constexpr size_t kNull = static_cast<size_t>(-1);
  // Opens a value at the end of the buffer (its bytes appended next);
  // End closes it.
  void Begin() {
    offsets_.push_back(buffer_.size());
    pointers_.clear();
  }
  void End() { buffer_ += '\0'; }
  std::string buffer_;
  std::vector<size_t> offsets_;  // where each value starts, kNull for NULL
  mutable std::vector<const char*> pointers_;
};

// The rows of one statement. Columns and rows are 0-based.
class Rows {
 public:
  explicit Rows(pg_result* result);
  Rows(Rows&& other) noexcept;
  Rows& operator=(Rows&& other) noexcept;
  Rows(const Rows&) = delete;
  ~Rows();

  int size() const;
  bool empty() const { return size() == 0; }
  // Rows changed by an INSERT/UPDATE/DELETE.
  int64_t affected() const;
  bool IsNull(int row, int col) const;
  std::string_view Text(int row, int col) const;
  int64_t Int(int row, int col) const;
  double Double(int row, int col) const;
  bool Bool(int row, int col) const;
  // Each accessor reads a column in the format it came in: text, or binary
  // for a statement that asked for it (PgStatement::binary_results).
  // The bytes of a bytea column (the connection sets bytea_output = hex for
  // text results).
  std::string Bytes(int row, int col) const;
  // A bytea column of float32 little-endian values.
  std::vector<float> Floats(int row, int col) const;
  // A text[] column.
  std::vector<std::string> TextArray(int row, int col) const;

 private:
  bool Binary(int col) const;
  pg_result* result_ = nullptr;
};

// Appends one field of a COPY text-format row: `value` with backslash, tab,
// newline and carriage return escaped, or \N for none.
void AppendCopyField(std::string& out, const std::optional<std::string_view>& value);

// COPY ... (FORMAT binary): the stream's header (before the first row) and
// trailer (after the last), and each row: its field count, then each field
// as a 4-byte length (-1 for NULL) and the value in the type's binary
// input form (integers big-endian). The server checks each value as its
// text input would (a text's encoding, a tsvector's limits) without
// parsing or unescaping it: half the server's time of a bulk write's COPY.
void AppendCopyBinaryHeader(std::string& out);
void AppendCopyBinaryTrailer(std::string& out);
void AppendCopyBinaryFieldCount(std::string& out, int16_t fields);
void AppendCopyBinaryNull(std::string& out);
void AppendCopyBinaryText(std::string& out, std::string_view text);
void AppendCopyBinaryInt8(std::string& out, int64_t value);
void AppendCopyBinaryBool(std::string& out, bool value);
// A text[] (one dimension, no NULLs; an empty one has no dimension).
void AppendCopyBinaryTextArray(std::string& out, std::span<const std::string> items);
// A field of `size` bytes the caller appends next (a tsvector's, pg_text.h).
void AppendCopyBinaryLength(std::string& out, size_t size);
// Big-endian integers, as the binary forms take them.
void AppendBigEndian16(std::string& out, uint16_t value);
void AppendBigEndian32(std::string& out, uint32_t value);

// A tsquery/tsvector lexeme literal: 'text' with ' and \ escaped.
std::string QuoteLexeme(std::string_view lexeme);
// The same, appended to `out`.
void AppendQuotedLexeme(std::string& out, std::string_view lexeme);

}  // namespace mnemo::storage::internal::pg
