package io.zkv.device.plm;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Without zkv-plm on the class path (as in this module's tests), naming a scheduler says what to
 * add.
 */
class WindowSchedulerProviderTest {
  @Test
  void withoutZkvPlmNamingASchedulerSaysWhatToAdd() {
    assertTrue(WindowSchedulerProvider.find().isEmpty());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> WindowSchedulerProvider.forName("r-vigil"));
    assertTrue(e.getMessage().contains("needs io.zkv:zkv-plm on the class path"), e.getMessage());
  }
}
