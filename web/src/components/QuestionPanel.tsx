import { useState } from "react";
import type { RunQuestionAsk } from "../contract";
import { useI18n } from "../i18n";

/** A pending `run.question.ask` with its suggested answers and a free answer box. */
export function QuestionPanel(props: { question: RunQuestionAsk; onAnswer(answer: string): Promise<void> }) {
  const { question } = props;
  const { t } = useI18n();
  const [answer, setAnswer] = useState("");
  const [busy, setBusy] = useState(false);
  const send = async (text: string) => {
    if (!text.trim()) return;
    setBusy(true);
    try {
      await props.onAnswer(text.trim());
    } finally {
      setBusy(false);
    }
  };
  const inputId = `answer-${question.question_id}`;
  return (
    <section className="card question" data-testid="question-box" aria-labelledby={`${inputId}-h`}>
      <h3 id={`${inputId}-h`}>
        <span aria-hidden="true">?</span> {t("question-heading")}
      </h3>
      <p>{question.question}</p>
      {question.options.length > 0 && (
        <div className="buttons">
          {question.options.map((option) => (
            <button
              type="button"
              key={option}
              data-testid="question-option"
              disabled={busy}
              onClick={() => void send(option)}
            >
              {option}
            </button>
          ))}
        </div>
      )}
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void send(answer);
        }}
      >
        <label htmlFor={inputId} className="visually-hidden">
          {t("question-answer-label")}
        </label>
        <input
          id={inputId}
          data-testid="question-input"
          value={answer}
          placeholder={t("question-answer-label")}
          onChange={(e) => setAnswer(e.target.value)}
        />
        <button type="submit" className="primary" data-testid="question-submit" disabled={busy || !answer.trim()}>
          {t("question-submit")}
        </button>
      </form>
    </section>
  );
}
