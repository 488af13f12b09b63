#include "text/stemmer.h"

#include <cstring>

namespace mnemo::text {
namespace {

// A direct transcription of Porter's reference implementation: b[k0..k] is
// the word, j a cursor set by Ends(). Kept close to the original so that it
// can be checked line by line against the published algorithm.
class Porter {
 public:
  Porter(char* b, int k) : b_(b), k_(k) {}

  int Run() {
    if (k_ <= 1) return k_;
    Step1ab();
    if (k_ > 0) {
      Step1c();
      Step2();
      Step3();
      Step4();
      Step5();
    }
    return k_;
  }

 private:
  bool Cons(int i) const {
    switch (b_[i]) {
      case 'a':
      case 'e':
      case 'i':
      case 'o':
      case 'u': return false;
      case 'y': return i == 0 ? true : !Cons(i - 1);
      default: return true;
    }
  }

  // Number of VC sequences in b[0..j].
  int M() const {
    int n = 0;
    int i = 0;
    while (true) {
      if (i > j_) return n;
      if (!Cons(i)) break;
      ++i;
    }
    ++i;
    while (true) {
      while (true) {
        if (i > j_) return n;
        if (Cons(i)) break;
        ++i;
      }
      ++i;
      ++n;
      while (true) {
        if (i > j_) return n;
        if (!Cons(i)) break;
        ++i;
      }
      ++i;
    }
  }

  bool VowelInStem() const {
    for (int i = 0; i <= j_; ++i) {
      if (!Cons(i)) return true;
    }
    return false;
  }

  bool DoubleC(int j) const {
    if (j < 1) return false;
    if (b_[j] != b_[j - 1]) return false;
    return Cons(j);
  }

  // consonant-vowel-consonant ending at i, the last not w, x or y.
  bool Cvc(int i) const {
    if (i < 2 || !Cons(i) || Cons(i - 1) || !Cons(i - 2)) return false;
    const char ch = b_[i];
    return ch != 'w' && ch != 'x' && ch != 'y';
  }

  bool Ends(std::string_view s) {
    const int length = static_cast<int>(s.size());
    if (s.back() != b_[k_]) return false;
    if (length > k_ + 1) return false;
    if (std::memcmp(b_ + k_ - length + 1, s.data(), length) != 0) return false;
    j_ = k_ - length;
    return true;
  }

  void SetTo(std::string_view s) {
    std::memmove(b_ + j_ + 1, s.data(), s.size());
    k_ = j_ + static_cast<int>(s.size());
  }

  void R(std::string_view s) {
    if (M() > 0) SetTo(s);
  }

  void Step1ab() {
    if (b_[k_] == 's') {
      if (Ends("sses")) {
        k_ -= 2;
      } else if (Ends("ies")) {
        SetTo("i");
      } else if (b_[k_ - 1] != 's') {
        --k_;
      }
    }
    if (Ends("eed")) {
      if (M() > 0) --k_;
    } else if ((Ends("ed") || Ends("ing")) && VowelInStem()) {
      k_ = j_;
      if (Ends("at")) {
        SetTo("ate");
      } else if (Ends("bl")) {
        SetTo("ble");
      } else if (Ends("iz")) {
        SetTo("ize");
      } else if (DoubleC(k_)) {
        --k_;
        const char ch = b_[k_];
        if (ch == 'l' || ch == 's' || ch == 'z') ++k_;
      } else if (M() == 1 && Cvc(k_)) {
        SetTo("e");
      }
    }
  }

  void Step1c() {
    if (Ends("y") && VowelInStem()) b_[k_] = 'i';
  }

  // Each rule list is tried in order; the first suffix that matches decides.
  struct Rule {
    std::string_view suffix;
    std::string_view replacement;
  };
  template <size_t N>
  void Apply(const Rule (&rules)[N]) {
    for (const Rule& rule : rules) {
      if (Ends(rule.suffix)) {
        R(rule.replacement);
        return;
      }
    }
  }

  void Step2() {
    if (k_ < 1) return;
    static constexpr Rule kA[] = {{"ational", "ate"}, {"tional", "tion"}};
    static constexpr Rule kC[] = {{"enci", "ence"}, {"anci", "ance"}};
    static constexpr Rule kE[] = {{"izer", "ize"}};
    static constexpr Rule kL[] = {
        {"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}};
    static constexpr Rule kO[] = {{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}};
    static constexpr Rule kS[] = {
        {"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}};
    static constexpr Rule kT[] = {{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}};
    static constexpr Rule kG[] = {{"logi", "log"}};
    switch (b_[k_ - 1]) {
      case 'a': Apply(kA); break;
      case 'c': Apply(kC); break;
      case 'e': Apply(kE); break;
      case 'l': Apply(kL); break;
      case 'o': Apply(kO); break;
      case 's': Apply(kS); break;
      case 't': Apply(kT); break;
      case 'g': Apply(kG); break;
      default: break;
    }
  }

  void Step3() {
    static constexpr Rule kE[] = {{"icate", "ic"}, {"ative", ""}, {"alize", "al"}};
    static constexpr Rule kI[] = {{"iciti", "ic"}};
    static constexpr Rule kL[] = {{"ical", "ic"}, {"ful", ""}};
    static constexpr Rule kS[] = {{"ness", ""}};
    switch (b_[k_]) {
      case 'e': Apply(kE); break;
      case 'i': Apply(kI); break;
      case 'l': Apply(kL); break;
      case 's': Apply(kS); break;
      default: break;
    }
  }

  bool Step4Matches() {
    if (k_ < 1) return false;
    switch (b_[k_ - 1]) {
      case 'a': return Ends("al");
      case 'c': return Ends("ance") || Ends("ence");
      case 'e': return Ends("er");
      case 'i': return Ends("ic");
      case 'l': return Ends("able") || Ends("ible");
      case 'n': return Ends("ant") || Ends("ement") || Ends("ment") || Ends("ent");
      case 'o':
        if (Ends("ion") && j_ >= 0 && (b_[j_] == 's' || b_[j_] == 't')) return true;
        return Ends("ou");
      case 's': return Ends("ism");
      case 't': return Ends("ate") || Ends("iti");
      case 'u': return Ends("ous");
      case 'v': return Ends("ive");
      case 'z': return Ends("ize");
      default: return false;
    }
  }

  void Step4() {
    if (Step4Matches() && M() > 1) k_ = j_;
  }

  void Step5() {
    j_ = k_;
    if (b_[k_] == 'e') {
      const int a = M();
      if (a > 1 || (a == 1 && !Cvc(k_ - 1))) --k_;
    }
    // As in the reference, M() still measures up to the original end here.
    if (b_[k_] == 'l' && DoubleC(k_) && M() > 1) --k_;
  }

  char* b_;
  int k_;
  int j_ = 0;
};

}  // namespace

bool IsStemmable(std::string_view s) {
  if (s.empty() || s.size() > kMaxStemmableLength) return false;
  for (char c : s) {
    if (c < 'a' || c > 'z') return false;
  }
  return true;
}

size_t StemInPlace(char* word, size_t len) {
  if (len < 3 || !IsStemmable(std::string_view(word, len))) return len;
  return static_cast<size_t>(Porter(word, static_cast<int>(len) - 1).Run() + 1);
}

std::string Stem(std::string_view word) {
  std::string out(word);
  out.resize(StemInPlace(out.data(), out.size()));
  return out;
}

}  // namespace mnemo::text
