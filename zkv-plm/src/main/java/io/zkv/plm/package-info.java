/**
 * NVMe Predictable Latency Mode after Vigil-KV: window schedulers ({@code io.zkv.plm.window}: Base,
 * R-Vigil, O-Vigil) and the driver applying them to a {@code plmarray:} device ({@code
 * io.zkv.plm.driver}). Striping, reconstruction and held writes are native (docs/plm.md).
 */
package io.zkv.plm;
