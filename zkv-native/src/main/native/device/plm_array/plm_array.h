/* The PLM array (plmarray: URIs, docs/plm.md): one zoned device composed of the NVM Sets of one
 * PLM device. NVM Set 1 is the meta set (PLM off): the array's journal and the zones that the WAL
 * and metadata bind to. The other sets are kv-sets: a logical zone bound to a stripe group has one
 * zone in every kv-set, written in chunks striped with rotating parity. Reads of a chunk on a
 * kv-set outside its DTWIN are rebuilt from the others; writes to a kv-set in DTWIN are held in a
 * bounded buffer until its NDWIN. Journal format: docs/formats/plm-array.md. */
#ifndef ZKV_PLM_ARRAY_H
#define ZKV_PLM_ARRAY_H
#include "common/backend.h"

#define PA_JOURNAL_MAGIC 0x4A41505Au /* "ZPAJ" */
#define PA_JOURNAL_VERSION 1u
#define PA_RECORD_HEADER 48u /* bytes used of the record's header block */

enum pa_record_type { PA_REC_HEAD = 1, PA_REC_BIND = 2, PA_REC_HELD = 3, PA_REC_RESET = 4, PA_REC_FINISH = 5 };
enum pa_kind { PA_UNBOUND = 0, PA_META = 1, PA_STRIPE = 2 };

zkv_dev *plm_array_open(const char *uri, int *err);
extern const zkv_backend zkv_plm_array_backend;
#endif
