// The "ciente" signature: drawn with a finger on a canvas (moved out of inspection.js).

/** A finger-drawn signature on a canvas (pointer events, so mouse, pen and touch all work). */
export class SignaturePad {
  constructor(canvas, onStroke = () => {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.drawing = false;
    this.strokes = 0;
    canvas.addEventListener("pointerdown", (e) => this.start(e));
    canvas.addEventListener("pointermove", (e) => this.move(e));
    ["pointerup", "pointercancel", "pointerleave"].forEach((t) =>
      canvas.addEventListener(t, () => {
        if (this.drawing) onStroke();
        this.drawing = false;
      }));
  }

  /** Draw back a kept signature (a PNG data URL). */
  draw(dataUrl) {
    const img = new Image();
    img.onload = () => this.ctx.drawImage(img, 0, 0);
    img.src = dataUrl;
    this.strokes = Math.max(this.strokes, 1);
  }

  point(e) {
    const r = this.canvas.getBoundingClientRect();
    return [(e.clientX - r.left) * (this.canvas.width / r.width),
      (e.clientY - r.top) * (this.canvas.height / r.height)];
  }

  start(e) {
    e.preventDefault();
    this.canvas.setPointerCapture(e.pointerId);
    this.drawing = true;
    this.strokes += 1;
    const [x, y] = this.point(e);
    this.ctx.beginPath();
    this.ctx.moveTo(x, y);
  }

  move(e) {
    if (!this.drawing) return;
    const [x, y] = this.point(e);
    this.ctx.lineWidth = 4;
    this.ctx.lineCap = "round";
    this.ctx.lineJoin = "round";
    this.ctx.strokeStyle = "#000";
    this.ctx.lineTo(x, y);
    this.ctx.stroke();
  }

  clear() {
    this.ctx.fillStyle = "#fff";
    this.ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    this.strokes = 0;
  }

  isEmpty() {
    return this.strokes === 0;
  }

  toDataURL() {
    return this.canvas.toDataURL("image/png");
  }
}
