/** An error a host function raises as BigQuery's function does: the query fails with its message (NULL under SAFE.). */
export class HostFunctionError extends Error {}
