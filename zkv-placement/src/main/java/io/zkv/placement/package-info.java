/**
 * Zone placement and GC policies (pure Java): the SPI the zone file system consults at each zone
 * allocation, with LIZA (ZenFS's default), CAZA and ZoneKV. Arrives with the zone file system.
 */
package io.zkv.placement;
