/* The emulator's Predictable Latency Mode model (profile `plm`): NVM Sets, each owning a
 * contiguous range of zones, each with its own window state and internal-task engine (write-buffer
 * flush and SLC-to-TLC migration, garbage collection of reset zones, read reclaim). Window rules,
 * parameters and their sources: docs/timing-model.md ("The plm profile"). All functions run with
 * the device lock held. */
#ifndef ZKV_PLM_H
#define ZKV_PLM_H
#include <stdint.h>

#include "zkv/device.h"

typedef struct plm_state plm_state;

/* `scale` divides the window times (DTWIN Time Maximum, NDWIN Time Minimum) and the internal job
 * queue's capacity; `manual` makes the window clock virtual, moved only by plm_advance (and by a
 * DTWIN request that has to wait). */
plm_state *plm_create(uint32_t nr_zones, uint32_t sets, uint32_t scale, int manual, uint64_t seed);
void plm_destroy(plm_state *p);
/* The 0-based index of the set owning `zone`. */
uint32_t plm_set_index(const plm_state *p, uint32_t zone);

/* Model events of a request to `zone` submitted now: returns the nanoseconds to add to its modelled
 * completion (held during a lockdown, stalled behind internal work). `service_ns`: the read's
 * modelled service time without them, for the statistics. */
uint64_t plm_on_read(plm_state *p, uint32_t zone, uint64_t bytes, uint64_t service_ns);
uint64_t plm_on_write(plm_state *p, uint32_t zone, uint64_t bytes);
/* A reset of a zone holding data queues its garbage collection (erase). */
void plm_on_reset(plm_state *p, uint32_t zone);

/* Set/Get Features 0x13/0x14, Get Log Page 0x0A/0x0B, Identify Controller; the caller has checked
 * the opcode and buffer length. Returns 0 or ZKV_ERR(status). *wait_until_ns (CLOCK_MONOTONIC, 0 =
 * none) is when the command completes: a DTWIN request waits out the NDWIN minimum and the
 * lockdown. */
int plm_admin(plm_state *p, zkv_admin_cmd *cmd, uint64_t *wait_until_ns);

int plm_advance(plm_state *p, uint64_t ns);
int plm_stats(plm_state *p, uint32_t nvm_set, zkv_emu_plm_stats *out);
#endif
