/**
 * The zoned device layer: {@link io.zkv.device.ZonedDevice} opened by URI (the emulator {@code
 * emu:}, {@code nvme:}, {@code zbd:}), {@link io.zkv.device.EmulatedDevice} to create emulated
 * devices, zone reports, appends, asynchronous queues and fault injection.
 *
 * <p>Exceptions: an I/O API, so a failure of the device is the checked {@link
 * io.zkv.device.ZonedDeviceException} (an {@link java.io.IOException}, typed as {@link
 * io.zkv.device.ZoneStatusException} for a ZNS status or {@link io.zkv.device.DeviceInUseException}
 * for a device another opener owns); misuse (a bad argument, a closed device) is an unchecked
 * {@link java.lang.IllegalArgumentException} or {@link java.lang.IllegalStateException}. zkv-core's
 * facade ({@code io.zkv}) wraps these failures in its unchecked {@code ZkvException}.
 */
package io.zkv.device;
