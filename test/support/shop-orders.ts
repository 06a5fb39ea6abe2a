/**
 * The source most tests of declared sources declare, as a source file's text: scalar columns, a
 * REQUIRED one, and a REPEATED RECORD of items. Tests change it by replacing its lines.
 */
export const SHOP_ORDERS = `name: shop.orders
columns:
  - { name: order_id, type: STRING, mode: REQUIRED }
  - { name: customer, type: STRING }
  - { name: total, type: NUMERIC }
  - name: items
    type: RECORD
    mode: REPEATED
    fields: [ { name: sku, type: STRING }, { name: qty, type: INT64 } ]
`;
