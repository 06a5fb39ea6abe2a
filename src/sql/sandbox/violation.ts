/** What a sandbox query may not do, said to its caller as `400 sandbox_violation`. */
export class SandboxViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxViolation';
  }
}
