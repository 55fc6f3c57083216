// The field operators a condition takes, as the service's OpenAPI document lists them (from the
// operator table, src/model/conditions/operators.ts), so the admin keeps no copy of the list.

/** The schema whose properties are every operator, in the table's order (instance. paths take them all). */
const ALL_OPERATORS = 'ConditionInstanceOperators';

let loading;

/** The operators' names, or undefined when the document cannot be read (asked again next time). */
export function conditionOperators() {
  loading ??= fetch('/api/openapi.json')
    .then((res) => (res.ok ? res.json() : undefined))
    .then((doc) => {
      const names = Object.keys(doc?.components?.schemas?.[ALL_OPERATORS]?.properties ?? {});
      if (names.length === 0) throw new Error('no operators in the OpenAPI document');
      return names;
    })
    .catch(() => {
      loading = undefined;
      return undefined;
    });
  return loading;
}
