import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTO_FILLED, unfilledWidgets, WIDGET_TYPES, type Widget } from './widgets';

const base = { role: 'R', page: 1, x: 0, y: 0, width: 10, height: 10 };

describe('widgets', () => {
  it('auto-fills signature, initials, date, name and e-mail only', () => {
    assert.deepEqual(
      WIDGET_TYPES.filter((type) => AUTO_FILLED.has(type)),
      ['signature', 'initials', 'date', 'name', 'email'],
    );
  });

  it('lists the required widgets that the values leave unfilled', () => {
    const widgets: Widget[] = [
      { ...base, id: 'sig', type: 'signature', required: true },
      { ...base, id: 'title', type: 'text', required: true },
      { ...base, id: 'blank', type: 'text', required: true },
      { ...base, id: 'note', type: 'text', required: false },
      { ...base, id: 'agree', type: 'checkbox', required: true },
      { ...base, id: 'copy', type: 'checkbox', required: false },
      { ...base, id: 'plan', type: 'dropdown', required: true, options: ['Basic', 'Premium'] },
      { ...base, id: 'tier', type: 'dropdown', required: true, options: ['Gold'] },
    ];
    const values = { title: 'CFO', blank: '   ', agree: false, plan: 'Premium', tier: 'Silver' };
    assert.deepEqual(
      unfilledWidgets(widgets, values).map((widget) => widget.id),
      ['blank', 'agree', 'tier'],
    );
    assert.deepEqual(unfilledWidgets(widgets, { ...values, blank: 'x', agree: true, tier: 'Gold' }), []);
  });
});
