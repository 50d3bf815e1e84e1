/** One problem of a request, as the server's problem documents list them (src/platform/http/shapes.ts). */
export interface Violation {
  field: string;
  message: string;
  line?: number;
  column?: number;
}
