package io.zkv.bench.driver;

/**
 * A strict JSON syntax checker (RFC 8259 grammar, no extensions) for the report tests: throws
 * {@link AssertionError} naming the offset of the first error.
 */
final class JsonSyntax {
  private final String s;
  private int i;

  private JsonSyntax(String s) {
    this.s = s;
  }

  static void check(String json) {
    JsonSyntax p = new JsonSyntax(json);
    p.ws();
    p.value();
    p.ws();
    if (p.i != json.length()) {
      p.fail("trailing text");
    }
  }

  private void value() {
    if (i >= s.length()) {
      fail("unexpected end");
    }
    char c = s.charAt(i);
    switch (c) {
      case '{' -> object();
      case '[' -> array();
      case '"' -> string();
      case 't' -> literal("true");
      case 'f' -> literal("false");
      case 'n' -> literal("null");
      default -> number();
    }
  }

  private void object() {
    i++;
    ws();
    if (peek() == '}') {
      i++;
      return;
    }
    while (true) {
      ws();
      string();
      ws();
      expect(':');
      ws();
      value();
      ws();
      if (peek() == ',') {
        i++;
      } else {
        expect('}');
        return;
      }
    }
  }

  private void array() {
    i++;
    ws();
    if (peek() == ']') {
      i++;
      return;
    }
    while (true) {
      ws();
      value();
      ws();
      if (peek() == ',') {
        i++;
      } else {
        expect(']');
        return;
      }
    }
  }

  private void string() {
    expect('"');
    while (i < s.length() && s.charAt(i) != '"') {
      char c = s.charAt(i++);
      if (c < 0x20) {
        fail("control character in string");
      }
      if (c == '\\') {
        char e = s.charAt(i++);
        if (e == 'u') {
          i += 4;
        } else if ("\"\\/bfnrt".indexOf(e) < 0) {
          fail("bad escape");
        }
      }
    }
    expect('"');
  }

  private void number() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    String n = s.substring(start, i);
    if (!n.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
      fail("bad number '" + n + "'");
    }
  }

  private void literal(String word) {
    if (!s.startsWith(word, i)) {
      fail("expected " + word);
    }
    i += word.length();
  }

  private void expect(char c) {
    if (peek() != c) {
      fail("expected '" + c + "'");
    }
    i++;
  }

  private char peek() {
    return i < s.length() ? s.charAt(i) : '\0';
  }

  private void ws() {
    while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
  }

  private void fail(String what) {
    int from = Math.max(0, i - 40);
    throw new AssertionError(
        what + " at offset " + i + ": ..." + s.substring(from, Math.min(s.length(), i + 40)));
  }
}
