package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.ZkvDb;
import io.zkv.ZonedEnv;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog's format record (docs/formats/kafka-streams-catalog.md) and its paths. */
class StoreCatalogTest {
  @TempDir Path dir;

  @Test
  void aNewCatalogRecordsFormatOneAndKeepsPathsAcrossMounts() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    try (ZonedEnv env = ZonedEnv.open(f.uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED)) {
      try (StoreCatalog c = new StoreCatalog(env)) {
        c.addAll(List.of("/s/app/0_0/rocksdb/a", "/s/app/0_1/rocksdb/a"));
        c.removeAll(List.of("/s/app/0_1/rocksdb/a"));
      }
      try (ZkvDb db = ZkvDb.open(env, StoreCatalog.PATH)) {
        assertEquals("1", new String(db.get(bytes("#format")), StandardCharsets.UTF_8));
      }
      try (StoreCatalog c = new StoreCatalog(env)) {
        assertEquals(Set.of("/s/app/0_0/rocksdb/a"), c.paths());
      }
    }
  }

  @Test
  void aCatalogOfAnotherFormatIsRefused() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    try (ZonedEnv env = ZonedEnv.open(f.uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED)) {
      try (ZkvDb db = ZkvDb.open(env, StoreCatalog.PATH)) {
        db.put(bytes("#format"), bytes("2"));
      }
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> new StoreCatalog(env));
      assertTrue(
          e.getMessage().contains("has format 2") && e.getMessage().contains("reads format 1"),
          e.getMessage());
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
