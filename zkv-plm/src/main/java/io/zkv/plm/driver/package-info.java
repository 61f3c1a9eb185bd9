/**
 * The window driver: applies a {@link io.zkv.plm.window.WindowScheduler}'s decisions to a {@code
 * plmarray:} device's NVM Sets (docs/plm.md).
 */
package io.zkv.plm.driver;
