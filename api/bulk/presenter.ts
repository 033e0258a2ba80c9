import type { BulkView } from '../../activities/bulk/bulk';
import type { BulkSendItem } from '../../db/models';
import type { BulkAccepted, BulkResponse } from './schema';

function presentItem(item: BulkSendItem) {
  return {
    index: item.position,
    status: item.status,
    document_id: item.document_id,
    error: item.error_code ? { code: item.error_code, message: item.error_message ?? '' } : null,
  };
}

export function presentBulkAccepted({ bulk, counts }: Pick<BulkView, 'bulk' | 'counts'>): BulkAccepted {
  return { bulk_id: bulk.id, status: bulk.status, total: bulk.total, ...counts };
}

export function presentBulk(view: BulkView): BulkResponse {
  const { bulk } = view;
  return {
    bulk_id: bulk.id,
    name: bulk.name,
    template_id: bulk.template_id,
    send: bulk.send,
    status: bulk.status,
    total: bulk.total,
    ...view.counts,
    created_at: bulk.created_at.toISOString(),
    completed_at: bulk.completed_at ? bulk.completed_at.toISOString() : null,
    items: view.items.map(presentItem),
    next_cursor: view.next_cursor,
  };
}
