package io.zkv.plm.driver;

import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.device.plm.WindowSchedulerProvider;
import java.util.List;
import java.util.Optional;

/**
 * zkv-plm's window schedulers as the {@link WindowSchedulerProvider} a {@code ZonedEnv} finds
 * ({@code META-INF/services}): each started as a {@link WindowDriver} on its own thread.
 */
public final class PlmWindowSchedulers implements WindowSchedulerProvider {
  @Override
  public List<String> names() {
    return WindowSchedulers.NAMES;
  }

  @Override
  public void checkName(String name) {
    WindowSchedulers.create(name, 0); // a class: setting is loaded and instantiated once here
  }

  @Override
  public void checkDevice(ZonedDevice device, String name) throws ZonedDeviceException {
    WindowDriver.checkDevice(device, WindowSchedulers.create(name, 0));
  }

  @Override
  public Optional<Running> start(ZonedDevice device, String name) throws ZonedDeviceException {
    checkDevice(device, name); // before the array's set is asked for its buffer
    long hold = device.plmArray().set(1).holdCapacity();
    WindowDriver driver = WindowDriver.start(device, WindowSchedulers.create(name, hold));
    return Optional.ofNullable(driver).map(d -> d::close);
  }
}
