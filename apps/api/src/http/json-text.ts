/** A handler's answer that is already JSON text (a read model's pre-serialized document): sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}
