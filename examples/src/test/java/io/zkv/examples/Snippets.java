package io.zkv.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A document's Java snippets are a test's regions: the ```java block after {@code <!-- snippet:NAME
 * -->} in the document is the region between {@code // snippet:NAME} and {@code // end:NAME} of the
 * test's source, character for character (indentation aside), every region shown once, in order. So
 * a snippet is run as pasted.
 */
public final class Snippets {
  private Snippets() {}

  /**
   * Checks that {@code document} shows exactly the regions of {@code sources}, those of the first
   * source first.
   */
  public static void check(Path document, Path... sources) throws IOException {
    Map<String, String> regions = new LinkedHashMap<>();
    for (Path source : sources) {
      regions.putAll(regions(Files.readString(source)));
    }
    checkShows(document, regions);
  }

  /**
   * Checks that {@code document} shows exactly the regions {@code names} of {@code source}, in that
   * order (a document that repeats some of another's snippets).
   */
  public static void checkSome(Path document, Path source, List<String> names) throws IOException {
    Map<String, String> all = regions(Files.readString(source));
    Map<String, String> regions = new LinkedHashMap<>();
    for (String name : names) {
      assertTrue(all.containsKey(name), source + " has no region " + name);
      regions.put(name, all.get(name));
    }
    checkShows(document, regions);
  }

  private static void checkShows(Path document, Map<String, String> regions) throws IOException {
    Matcher m =
        Pattern.compile("<!-- snippet:([a-z]+) -->\\s*```java\\n(.*?)```", Pattern.DOTALL)
            .matcher(Files.readString(document));
    List<String> shown = new ArrayList<>();
    while (m.find()) {
      shown.add(m.group(1));
      assertEquals(
          regions.get(m.group(1)), m.group(2), "snippet " + m.group(1) + " of " + document);
    }
    assertFalse(shown.isEmpty(), document + " marks no snippet");
    assertEquals(List.copyOf(regions.keySet()), shown, "every snippet shown once, in order");
  }

  /** The regions between the markers, de-indented by their first line's indentation. */
  public static Map<String, String> regions(String source) {
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m =
        Pattern.compile("\\n( *)// snippet:([a-z]+)\\n(.*?)\\n *// end:\\2", Pattern.DOTALL)
            .matcher(source);
    while (m.find()) {
      int indent = m.group(1).length();
      StringBuilder b = new StringBuilder();
      for (String line : m.group(3).split("\n", -1)) {
        b.append(line.length() >= indent ? line.substring(indent) : line.strip()).append('\n');
      }
      out.put(m.group(2), b.toString());
    }
    return out;
  }
}
