/**
 * Window scheduling for PLM devices (issue 13, Vigil-KV's {@code devd}): the {@link
 * io.zkv.plm.window.WindowScheduler} SPI, consulted at window decisions and never per I/O, and its
 * implementations {@link io.zkv.plm.window.BaseScheduler} (PLM off), {@link
 * io.zkv.plm.window.RoundRobinVigil} (R-Vigil) and {@link io.zkv.plm.window.AdaptiveVigil}
 * (O-Vigil). The driver that applies their decisions to a device and routes I/O by phase comes with
 * the composite PLM device; the tests drive them on a virtual clock.
 */
package io.zkv.plm.window;
