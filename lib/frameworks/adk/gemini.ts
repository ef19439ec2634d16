import { Gemini, type GeminiParams } from '@google/adk';

export interface GeminiModelParams extends GeminiParams {
  /**
   * Where `@google/genai` sends requests instead of Google's endpoint (the scripted model server
   * in tests, a proxy); the API version (`v1beta`) is appended by the client.
   */
  readonly baseUrl?: string;
}

/** ADK's `Gemini` model with a base URL (ADK itself takes none). */
class GeminiAt extends Gemini {
  readonly #baseUrl: string | undefined;

  constructor({ baseUrl, ...params }: GeminiModelParams) {
    super(params);
    this.#baseUrl = baseUrl;
  }

  protected override getHttpOptions() {
    const options = super.getHttpOptions();
    return this.#baseUrl ? { ...options, baseUrl: this.#baseUrl } : options;
  }
}

/** A Gemini model for an ADK agent (`new LlmAgent({ model: geminiModel({...}) })`). */
export function geminiModel(params: GeminiModelParams = {}): Gemini {
  return new GeminiAt(params);
}
