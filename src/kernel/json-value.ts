/** Any JSON value: a trigger's payload, an instance's attribute. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
