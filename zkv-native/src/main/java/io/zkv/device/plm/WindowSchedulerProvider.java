package io.zkv.device.plm;

import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The window schedulers of PLM devices (Vigil-KV's windows, docs/plm.md), found with {@link
 * ServiceLoader} so that the file system's module carries no scheduler: {@code io.zkv:zkv-plm}
 * provides them. Without it on the class path, naming a window scheduler is refused, saying so.
 */
public interface WindowSchedulerProvider {
  /** A running scheduler; {@link #close} stops it. */
  interface Running extends AutoCloseable {
    @Override
    void close();
  }

  /** The scheduler names this provider knows ({@code base}, {@code r-vigil}, ...). */
  List<String> names();

  /**
   * Refuses a setting this provider cannot make a scheduler of: an unknown name, or a {@code
   * class:} setting whose class does not load or implement the provider's scheduler interface.
   *
   * @throws IllegalArgumentException saying why
   */
  void checkName(String name);

  /**
   * Refuses, before anything is mounted, a device scheduler {@code name} cannot run, saying why.
   *
   * @throws IllegalArgumentException for an unknown name or a device that cannot run it
   * @throws ZonedDeviceException if the device cannot be asked
   */
  void checkDevice(ZonedDevice device, String name) throws ZonedDeviceException;

  /**
   * Starts scheduler {@code name} on the device; empty when there is nothing to decide (a scheduler
   * that keeps PLM off, on a device without PLM).
   *
   * @throws IllegalArgumentException for an unknown name or a device that cannot run it
   * @throws ZonedDeviceException if the device fails
   */
  Optional<Running> start(ZonedDevice device, String name) throws ZonedDeviceException;

  /** The provider on the class path, if any. */
  static Optional<WindowSchedulerProvider> find() {
    return ServiceLoader.load(WindowSchedulerProvider.class).findFirst();
  }

  /**
   * The provider on the class path, after checking that it knows {@code name} (a built-in's name,
   * or {@code class:} and a scheduler class of the user's own).
   *
   * @throws IllegalArgumentException without a provider, or for a name it does not know
   */
  static WindowSchedulerProvider forName(String name) {
    WindowSchedulerProvider p =
        find()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "window scheduler '"
                            + name
                            + "' needs io.zkv:zkv-plm on the class path (it provides the window"
                            + " schedulers)"));
    p.checkName(name);
    return p;
  }
}
