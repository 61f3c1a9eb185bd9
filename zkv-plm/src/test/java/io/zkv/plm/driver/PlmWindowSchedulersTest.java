package io.zkv.plm.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.plm.WindowSchedulerProvider;
import org.junit.jupiter.api.Test;

/** zkv-plm's schedulers are what a ZonedEnv finds on the class path (META-INF/services). */
class PlmWindowSchedulersTest {
  @Test
  void theServiceLoaderFindsTheSchedulersByName() {
    WindowSchedulerProvider p = WindowSchedulerProvider.forName("o-vigil");
    assertTrue(p instanceof PlmWindowSchedulers, p.getClass().getName());
    assertEquals(WindowSchedulers.NAMES, p.names());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> WindowSchedulerProvider.forName("silk"));
    assertTrue(
        e.getMessage().contains("unknown window scheduler 'silk' (known: base, plm"),
        e.getMessage());
  }
}
