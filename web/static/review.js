// The coach's review of the player's own game (the REVIEW frame): a progress bar while it is
// made, then its summary with the chart, and one page per marked decision with Previous and
// Next.  The server writes every line in the reader's language; this only lays them out.

import { t } from "./strings.js";

const $ = (id) => document.getElementById(id);

function line(text, className) {
  const node = document.createElement("p");
  if (className) node.className = className;
  node.textContent = text;
  return node;
}

/** The review panel: ``ask()`` sends the request, ``progress`` and ``show`` take frames. */
export class ReviewPanel {
  constructor(send) {
    this.send = send;
    this.review = null;
    this.page = 0;
    this.seq = null;
    $("review-prev").onclick = () => this.go(this.page - 1);
    $("review-next").onclick = () => this.go(this.page + 1);
    $("review-close").onclick = () => this.close();
  }

  /** Ask for the review of ``game`` (request number ``seq``): the panel opens on its progress. */
  ask(game, seq) {
    this.seq = seq;
    this.review = null;
    $("review").hidden = false;
    const bar = $("review-progress");
    bar.hidden = false;
    bar.value = 0;
    bar.max = 1;
    $("review-body").replaceChildren(line(t("reviewing")));
    $("review-chart").hidden = true;
    $("review-prev").hidden = true;
    $("review-next").hidden = true;
    this.send({ t: "review", seq, game });
  }

  progress(frame) {
    if (frame.seq !== this.seq) return;
    const bar = $("review-progress");
    bar.max = Math.max(frame.total, 1);
    bar.value = frame.done;
  }

  show(frame) {
    if (frame.seq !== this.seq) return;
    this.review = frame;
    $("review-progress").hidden = true;
    this.go(0);
  }

  /** A refusal of the request: the panel closes (the page shows the reason). */
  refused(seq) {
    if (seq === this.seq) this.close();
  }

  go(page) {
    const review = this.review;
    if (!review) return;
    const pages = review.pages.length;
    this.page = Math.min(Math.max(page, 0), pages);
    const body = $("review-body");
    const chart = $("review-chart");
    if (this.page === 0) {
      body.replaceChildren(...review.summary.map((text, i) => line(text, i === 0 ? "review-head" : "")));
      if (review.chart) {
        chart.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(review.chart);
        chart.alt = t("chart_alt");
        chart.hidden = false;
      } else {
        chart.hidden = true;
      }
    } else {
      const shown = review.pages[this.page - 1];
      body.replaceChildren(
        ...shown.lines.map((text, i) => line(text, i === 0 ? `review-head review-${shown.label}` : "")),
      );
      chart.hidden = true;
    }
    $("review-prev").hidden = false;
    $("review-next").hidden = false;
    $("review-prev").disabled = this.page === 0;
    $("review-next").disabled = this.page >= pages;
  }

  close() {
    this.seq = null;
    $("review").hidden = true;
  }
}
