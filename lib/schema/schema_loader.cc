#include "lib/schema/schema_loader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "lib/util/ascii.h"

namespace dirload {
namespace {

struct Token {
  enum Kind { kLParen, kRParen, kDollar, kQuoted, kWord, kEnd };
  Kind kind = kEnd;
  std::string text;
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Token::kLParen:
      return "'('";
    case Token::kRParen:
      return "')'";
    case Token::kDollar:
      return "'$'";
    case Token::kQuoted:
      return "'" + t.text + "'";
    case Token::kWord:
      return "'" + t.text + "'";
    case Token::kEnd:
      return "end of input";
  }
  return "?";
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Splits a description into tokens. Words run until a space or one of
// ( ) $ ' so "MUST (objectClass $ cn)" needs no spaces inside the parentheses.
class Tokenizer {
 public:
  explicit Tokenizer(std::string_view s) : s_(s) {}

  Result<Token> Next() {
    if (peeked_) {
      peeked_ = false;
      return std::move(peek_);
    }
    return Scan();
  }

  Result<Token> Peek() {
    if (!peeked_) {
      DIRLOAD_ASSIGN_OR_RETURN(peek_, Scan());
      peeked_ = true;
    }
    return peek_;
  }

 private:
  Result<Token> Scan() {
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
    Token t;
    if (pos_ == s_.size()) return t;
    const char c = s_[pos_];
    if (c == '(' || c == ')' || c == '$') {
      t.kind = c == '(' ? Token::kLParen : (c == ')' ? Token::kRParen : Token::kDollar);
      t.text.assign(1, c);
      ++pos_;
      return t;
    }
    if (c == '\'') {
      ++pos_;
      t.kind = Token::kQuoted;
      for (;;) {
        if (pos_ == s_.size()) return Status::ParseError("unterminated quoted string");
        const char q = s_[pos_];
        if (q == '\'') {
          ++pos_;
          break;
        }
        // RFC 4512 escapes \27 (') and \5C (\); other backslashes are literal.
        if (q == '\\' && pos_ + 2 < s_.size() && IsHexDigit(s_[pos_ + 1]) &&
            IsHexDigit(s_[pos_ + 2])) {
          t.text.push_back(
              static_cast<char>(HexDigitValue(s_[pos_ + 1]) * 16 + HexDigitValue(s_[pos_ + 2])));
          pos_ += 3;
          continue;
        }
        t.text.push_back(q);
        ++pos_;
      }
      return t;
    }
    t.kind = Token::kWord;
    while (pos_ < s_.size() && !IsSpace(s_[pos_]) && s_[pos_] != '(' && s_[pos_] != ')' &&
           s_[pos_] != '$' && s_[pos_] != '\'') {
      t.text.push_back(s_[pos_++]);
    }
    return t;
  }

  std::string_view s_;
  size_t pos_ = 0;
  bool peeked_ = false;
  Token peek_;
};

// The grammar shared by the three description kinds.
class DescriptionParser {
 public:
  DescriptionParser(const Schema& schema, std::string_view text) : schema_(schema), tok_(text) {}

  // '(' and the definition's OID (numeric or a macro).
  Result<std::string> Open() {
    DIRLOAD_ASSIGN_OR_RETURN(Token t, tok_.Next());
    if (t.kind != Token::kLParen) return Status::ParseError("'(' expected, found " + Describe(t));
    DIRLOAD_ASSIGN_OR_RETURN(Token oid, tok_.Next());
    if (oid.kind != Token::kWord && oid.kind != Token::kQuoted) {
      return Status::ParseError("OID expected, found " + Describe(oid));
    }
    return schema_.ExpandOid(oid.text);
  }

  // The next keyword, upper-cased, or "" at the closing parenthesis (which
  // must end the text). Repeated keywords are an error.
  Result<std::string> NextKeyword() {
    DIRLOAD_ASSIGN_OR_RETURN(Token t, tok_.Next());
    if (t.kind == Token::kRParen) {
      DIRLOAD_ASSIGN_OR_RETURN(Token rest, tok_.Next());
      if (rest.kind != Token::kEnd) {
        return Status::ParseError("unexpected " + Describe(rest) + " after the closing ')'");
      }
      return std::string();
    }
    if (t.kind == Token::kEnd) return Status::ParseError("missing closing ')'");
    if (t.kind != Token::kWord) return Status::ParseError("keyword expected, found " + Describe(t));
    std::string kw = t.text;
    for (char& c : kw) c = AsciiUpper(c);
    if (!seen_.insert(kw).second) return Status::ParseError("keyword " + kw + " repeated");
    return kw;
  }

  // qdescrs: 'a' or ( 'a' 'b' ); bare words are tolerated.
  Result<std::vector<std::string>> Names() {
    std::vector<std::string> out;
    DIRLOAD_ASSIGN_OR_RETURN(Token t, tok_.Next());
    if (t.kind == Token::kQuoted || t.kind == Token::kWord) {
      out.push_back(std::move(t.text));
      return out;
    }
    if (t.kind != Token::kLParen) return Status::ParseError("name expected, found " + Describe(t));
    for (;;) {
      DIRLOAD_ASSIGN_OR_RETURN(Token n, tok_.Next());
      if (n.kind == Token::kRParen) break;
      if (n.kind == Token::kDollar) continue;
      if (n.kind != Token::kQuoted && n.kind != Token::kWord) {
        return Status::ParseError("name expected, found " + Describe(n));
      }
      out.push_back(std::move(n.text));
    }
    if (out.empty()) return Status::ParseError("empty name list");
    return out;
  }

  Result<std::string> QuotedString() {
    DIRLOAD_ASSIGN_OR_RETURN(Token t, tok_.Next());
    if (t.kind != Token::kQuoted)
      return Status::ParseError("quoted string expected, found " + Describe(t));
    return std::move(t.text);
  }

  // qdstrings for X- extensions: 'a' or ( 'a' 'b' ).
  Result<std::vector<std::string>> QuotedStrings() {
    std::vector<std::string> out;
    DIRLOAD_ASSIGN_OR_RETURN(Token t, tok_.Next());
    if (t.kind == Token::kQuoted) {
      out.push_back(std::move(t.text));
      return out;
    }
    if (t.kind != Token::kLParen)
      return Status::ParseError("quoted string expected, found " + Describe(t));
    for (;;) {
      DIRLOAD_ASSIGN_OR_RETURN(Token n, tok_.Next());
      if (n.kind == Token::kRParen) break;
      if (n.kind != Token::kQuoted)
        return Status::ParseError("quoted string expected, found " + Describe(n));
      out.push_back(std::move(n.text));
    }
    return out;
  }

  // woid: a name or OID; "macro:suffix" forms are expanded.
  Result<std::string> Oid() {
    DIRLOAD_ASSIGN_OR_RETURN(Token t, tok_.Next());
    if (t.kind != Token::kWord && t.kind != Token::kQuoted) {
      return Status::ParseError("name or OID expected, found " + Describe(t));
    }
    if (t.text.find(':') != std::string::npos) return schema_.ExpandOid(t.text);
    return std::move(t.text);
  }

  // oids: woid or ( woid $ woid ... ); a missing '$' is tolerated.
  Result<std::vector<std::string>> Oids() {
    std::vector<std::string> out;
    DIRLOAD_ASSIGN_OR_RETURN(Token first, tok_.Peek());
    if (first.kind != Token::kLParen) {
      DIRLOAD_ASSIGN_OR_RETURN(std::string one, Oid());
      out.push_back(std::move(one));
      return out;
    }
    (void)tok_.Next();
    for (;;) {
      DIRLOAD_ASSIGN_OR_RETURN(Token n, tok_.Peek());
      if (n.kind == Token::kRParen) {
        (void)tok_.Next();
        break;
      }
      if (n.kind == Token::kDollar) {
        (void)tok_.Next();
        continue;
      }
      DIRLOAD_ASSIGN_OR_RETURN(std::string one, Oid());
      out.push_back(std::move(one));
    }
    if (out.empty()) return Status::ParseError("empty OID list");
    return out;
  }

  // noidlen: OID (or macro) with an optional {len}; may be quoted.
  Status SyntaxOid(std::string* oid, uint32_t* len) {
    DIRLOAD_ASSIGN_OR_RETURN(Token t, tok_.Next());
    if (t.kind != Token::kWord && t.kind != Token::kQuoted) {
      return Status::ParseError("syntax OID expected, found " + Describe(t));
    }
    std::string_view text = t.text;
    *len = 0;
    if (const size_t brace = text.find('{'); brace != std::string_view::npos) {
      std::string_view bound = text.substr(brace + 1);
      if (bound.empty() || bound.back() != '}')
        return Status::ParseError("malformed {len} in " + t.text);
      bound.remove_suffix(1);
      uint64_t v = 0;
      for (char c : bound) {
        if (!IsAsciiDigit(c) || v > 0xFFFFFFFFull / 10) {
          return Status::ParseError("malformed {len} in " + t.text);
        }
        v = v * 10 + static_cast<uint64_t>(c - '0');
      }
      if (bound.empty()) return Status::ParseError("malformed {len} in " + t.text);
      *len = static_cast<uint32_t>(v);
      text = text.substr(0, brace);
    }
    DIRLOAD_ASSIGN_OR_RETURN(*oid, schema_.ExpandOid(text));
    return Status::Ok();
  }

  Result<std::string> Word() {
    DIRLOAD_ASSIGN_OR_RETURN(Token t, tok_.Next());
    if (t.kind != Token::kWord) return Status::ParseError("word expected, found " + Describe(t));
    return std::move(t.text);
  }

  Status Extension(const std::string& keyword, std::vector<SchemaExtension>* out) {
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> values, QuotedStrings());
    out->push_back(SchemaExtension{keyword, std::move(values)});
    return Status::Ok();
  }

 private:
  const Schema& schema_;
  Tokenizer tok_;
  std::set<std::string> seen_;
};

bool IsExtension(std::string_view kw) { return kw.size() > 2 && kw[0] == 'X' && kw[1] == '-'; }

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<AttributeTypeDescription> ParseAttributeTypeDescription(const Schema& schema,
                                                               std::string_view text) {
  DescriptionParser p(schema, text);
  AttributeTypeDescription d;
  DIRLOAD_ASSIGN_OR_RETURN(d.oid, p.Open());
  for (;;) {
    DIRLOAD_ASSIGN_OR_RETURN(std::string kw, p.NextKeyword());
    if (kw.empty()) break;
    if (kw == "NAME") {
      DIRLOAD_ASSIGN_OR_RETURN(d.names, p.Names());
    } else if (kw == "DESC") {
      DIRLOAD_ASSIGN_OR_RETURN(d.desc, p.QuotedString());
    } else if (kw == "OBSOLETE") {
      d.obsolete = true;
    } else if (kw == "SUP") {
      DIRLOAD_ASSIGN_OR_RETURN(d.sup, p.Oid());
    } else if (kw == "EQUALITY") {
      DIRLOAD_ASSIGN_OR_RETURN(d.equality, p.Oid());
    } else if (kw == "ORDERING") {
      DIRLOAD_ASSIGN_OR_RETURN(d.ordering, p.Oid());
    } else if (kw == "SUBSTR") {
      DIRLOAD_ASSIGN_OR_RETURN(d.substr, p.Oid());
    } else if (kw == "SYNTAX") {
      DIRLOAD_RETURN_IF_ERROR(p.SyntaxOid(&d.syntax, &d.syntax_len));
    } else if (kw == "SINGLE-VALUE") {
      d.single_value = true;
    } else if (kw == "COLLECTIVE") {
      d.collective = true;
    } else if (kw == "NO-USER-MODIFICATION") {
      d.no_user_modification = true;
    } else if (kw == "USAGE") {
      DIRLOAD_ASSIGN_OR_RETURN(std::string usage, p.Word());
      if (EqualsIgnoreCase(usage, "userApplications")) {
        d.usage = AttributeUsage::kUserApplications;
      } else if (EqualsIgnoreCase(usage, "directoryOperation")) {
        d.usage = AttributeUsage::kDirectoryOperation;
      } else if (EqualsIgnoreCase(usage, "distributedOperation")) {
        d.usage = AttributeUsage::kDistributedOperation;
      } else if (EqualsIgnoreCase(usage, "dSAOperation")) {
        d.usage = AttributeUsage::kDsaOperation;
      } else {
        return Status::ParseError("unknown USAGE '" + usage + "'");
      }
    } else if (IsExtension(kw)) {
      DIRLOAD_RETURN_IF_ERROR(p.Extension(kw, &d.extensions));
    } else {
      return Status::ParseError("unknown keyword '" + kw + "'");
    }
  }
  return d;
}

Result<ObjectClassDescription> ParseObjectClassDescription(const Schema& schema,
                                                           std::string_view text) {
  DescriptionParser p(schema, text);
  ObjectClassDescription d;
  DIRLOAD_ASSIGN_OR_RETURN(d.oid, p.Open());
  bool kind_seen = false;
  for (;;) {
    DIRLOAD_ASSIGN_OR_RETURN(std::string kw, p.NextKeyword());
    if (kw.empty()) break;
    if (kw == "NAME") {
      DIRLOAD_ASSIGN_OR_RETURN(d.names, p.Names());
    } else if (kw == "DESC") {
      DIRLOAD_ASSIGN_OR_RETURN(d.desc, p.QuotedString());
    } else if (kw == "OBSOLETE") {
      d.obsolete = true;
    } else if (kw == "SUP") {
      DIRLOAD_ASSIGN_OR_RETURN(d.sup, p.Oids());
    } else if (kw == "ABSTRACT" || kw == "STRUCTURAL" || kw == "AUXILIARY") {
      if (kind_seen) return Status::ParseError("more than one of ABSTRACT, STRUCTURAL, AUXILIARY");
      kind_seen = true;
      d.kind = kw == "ABSTRACT"     ? ObjectClassKind::kAbstract
               : kw == "STRUCTURAL" ? ObjectClassKind::kStructural
                                    : ObjectClassKind::kAuxiliary;
    } else if (kw == "MUST") {
      DIRLOAD_ASSIGN_OR_RETURN(d.must, p.Oids());
    } else if (kw == "MAY") {
      DIRLOAD_ASSIGN_OR_RETURN(d.may, p.Oids());
    } else if (IsExtension(kw)) {
      DIRLOAD_RETURN_IF_ERROR(p.Extension(kw, &d.extensions));
    } else {
      return Status::ParseError("unknown keyword '" + kw + "'");
    }
  }
  return d;
}

Result<SyntaxDescription> ParseSyntaxDescription(const Schema& schema, std::string_view text) {
  DescriptionParser p(schema, text);
  SyntaxDescription d;
  DIRLOAD_ASSIGN_OR_RETURN(d.oid, p.Open());
  for (;;) {
    DIRLOAD_ASSIGN_OR_RETURN(std::string kw, p.NextKeyword());
    if (kw.empty()) break;
    if (kw == "DESC") {
      DIRLOAD_ASSIGN_OR_RETURN(d.desc, p.QuotedString());
    } else if (kw == "NAME") {
      // slapd accepts a NAME on syntaxes but nothing refers to syntaxes by it.
      DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> names, p.Names());
      (void)names;
    } else if (kw == "X-SUBST") {
      DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> values, p.QuotedStrings());
      if (values.size() != 1) return Status::ParseError("X-SUBST takes one OID");
      DIRLOAD_ASSIGN_OR_RETURN(d.subst, schema.ExpandOid(values[0]));
    } else if (IsExtension(kw)) {
      DIRLOAD_RETURN_IF_ERROR(p.Extension(kw, &d.extensions));
    } else {
      return Status::ParseError("unknown keyword '" + kw + "'");
    }
  }
  return d;
}

bool IsSchemaDirective(std::string_view keyword) {
  return EqualsIgnoreCase(keyword, "attributetype") || EqualsIgnoreCase(keyword, "objectclass") ||
         EqualsIgnoreCase(keyword, "objectidentifier") || EqualsIgnoreCase(keyword, "ldapsyntax") ||
         EqualsIgnoreCase(keyword, "ditcontentrule");
}

Status ApplySchemaDirective(Schema* schema, std::string_view keyword, std::string_view args,
                            std::vector<std::string>* warnings) {
  if (EqualsIgnoreCase(keyword, "attributetype")) {
    DIRLOAD_ASSIGN_OR_RETURN(AttributeTypeDescription d,
                             ParseAttributeTypeDescription(*schema, args));
    return schema->AddAttributeType(d);
  }
  if (EqualsIgnoreCase(keyword, "objectclass")) {
    DIRLOAD_ASSIGN_OR_RETURN(ObjectClassDescription d, ParseObjectClassDescription(*schema, args));
    return schema->AddObjectClass(d);
  }
  if (EqualsIgnoreCase(keyword, "ldapsyntax")) {
    DIRLOAD_ASSIGN_OR_RETURN(SyntaxDescription d, ParseSyntaxDescription(*schema, args));
    return schema->AddSyntax(d);
  }
  if (EqualsIgnoreCase(keyword, "objectidentifier")) {
    std::istringstream in{std::string(args)};
    std::string name, oid, extra;
    if (!(in >> name >> oid) || (in >> extra)) {
      return Status::ParseError("expected: objectidentifier NAME OID");
    }
    bool same_again = false;
    DIRLOAD_RETURN_IF_ERROR(schema->AddOidMacro(name, oid, &same_again));
    if (same_again && warnings != nullptr) {
      warnings->push_back("objectidentifier '" + name + "' previously defined as '" +
                          schema->ExpandOid(name).value() + "'");
    }
    return Status::Ok();
  }
  if (EqualsIgnoreCase(keyword, "ditcontentrule")) {
    return Status::Ok();  // content rules are not enforced by dirload (nor by slapadd -s)
  }
  return Status::InvalidArgument("'" + std::string(keyword) + "' is not a schema directive");
}

Status LoadSchemaText(Schema* schema, std::string_view text, std::string_view source,
                      std::vector<std::string>* warnings) {
  std::string statement;
  size_t statement_line = 0;

  auto flush = [&]() -> Status {
    if (statement.empty()) return Status::Ok();
    std::string_view s = TrimSpaces(statement);
    size_t split = 0;
    while (split < s.size() && !IsSpace(s[split])) ++split;
    const std::string_view keyword = s.substr(0, split);
    const std::string_view args = TrimSpaces(s.substr(split));
    const std::string where = std::string(source) + ":" + std::to_string(statement_line) + ": ";
    Status st;
    if (IsSchemaDirective(keyword)) {
      std::vector<std::string> found;
      st = ApplySchemaDirective(schema, keyword, args, &found);
      if (warnings != nullptr) {
        for (std::string& w : found) warnings->push_back(where + w);
      }
      st = st.WithPrefix(where + AsciiLowerCopy(keyword) + ": ");
    } else if (warnings != nullptr) {
      warnings->push_back(where + "unknown directive '" + std::string(keyword) + "' ignored");
    }
    statement.clear();
    return st;
  };

  size_t line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    if (TrimSpaces(line).empty() || line.front() == '#') {
      DIRLOAD_RETURN_IF_ERROR(flush());
    } else if (line.front() == ' ' || line.front() == '\t') {
      if (statement.empty()) statement_line = line_no;
      statement.push_back(' ');
      statement.append(line);
    } else {
      DIRLOAD_RETURN_IF_ERROR(flush());
      statement.assign(line);
      statement_line = line_no;
    }
    if (eol == text.size()) break;
  }
  return flush();
}

Status LoadSchemaDefinitions(Schema* schema, std::span<const SchemaDefinition> definitions,
                             std::vector<std::string>* warnings) {
  for (const SchemaDefinition& d : definitions) {
    const std::string where = d.source + ": ";
    if (!IsSchemaDirective(d.keyword)) {
      return Status::InvalidArgument(where + "'" + d.keyword + "' is not a schema directive");
    }
    std::vector<std::string> found;
    Status st = ApplySchemaDirective(schema, d.keyword, TrimSpaces(d.text), &found);
    if (warnings != nullptr) {
      for (std::string& w : found) warnings->push_back(where + w);
    }
    DIRLOAD_RETURN_IF_ERROR(st.WithPrefix(where + AsciiLowerCopy(d.keyword) + ": "));
  }
  return Status::Ok();
}

Status LoadSchemaFile(Schema* schema, const std::string& path, std::vector<std::string>* warnings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Status::IoError(path + ": read failed: " + std::strerror(errno));
  return LoadSchemaText(schema, buf.str(), path, warnings);
}

}  // namespace dirload
