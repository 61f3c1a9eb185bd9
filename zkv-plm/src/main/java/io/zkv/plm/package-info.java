/**
 * NVMe Predictable Latency Mode: window scheduling (R-Vigil, O-Vigil), set striping and read
 * reconstruction. Arrives after the kernel device path.
 */
package io.zkv.plm;
