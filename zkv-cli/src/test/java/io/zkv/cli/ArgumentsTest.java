package io.zkv.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ArgumentsTest {
  @Test
  void leadingWordsArePositionalAndMustBeRead() {
    Arguments a = Arguments.of("compare", "--repeat", "3");
    assertEquals("compare", a.positional(0, null));
    assertEquals(3, a.number("repeat", 1, 1, 10));
    a.requireAllUsed();

    Arguments unread = Arguments.of("compare", "--repeat", "3");
    unread.number("repeat", 1, 1, 10);
    Arguments.UsageException e =
        assertThrows(Arguments.UsageException.class, unread::requireAllUsed);
    assertEquals("unexpected argument 'compare'", e.getMessage());
  }

  @Test
  void aWordAfterAnOptionValueIsRefused() {
    Arguments.UsageException e =
        assertThrows(
            Arguments.UsageException.class, () -> Arguments.of("--keys", "10", "extra", "word"));
    assertEquals("unexpected argument 'extra'", e.getMessage());
  }

  @Test
  void repeatedOptionsKeepEveryValueInOrder() {
    Arguments a = Arguments.of("--config", "zkv", "--config=rocksdb-default", "--x", "1");
    assertEquals(List.of("zkv", "rocksdb-default"), a.strings("config"));
    assertEquals("rocksdb-default", a.string("config", null));
    assertEquals(List.of(), a.strings("absent"));
  }

  @Test
  void decimalsAndFlags() {
    Arguments a = Arguments.of("--duration", "0.5", "--sync", "--wal", "no");
    assertEquals(0.5, a.decimal("duration", 1, 0.1, 10));
    assertTrue(a.flag("sync", false));
    assertFalse(a.flag("wal", true));
    assertTrue(a.flag("absent", true));
    Arguments bad = Arguments.of("--duration", "x", "--sync", "maybe", "--big", "11");
    assertThrows(Arguments.UsageException.class, () -> bad.decimal("duration", 1, 0, 10));
    assertThrows(Arguments.UsageException.class, () -> bad.flag("sync", false));
    Arguments.UsageException e =
        assertThrows(Arguments.UsageException.class, () -> bad.decimal("big", 1, 0, 10));
    assertTrue(e.getMessage().contains("must be between"), e.getMessage());
  }
}
