/**
 * A todo list in Lit, shaped like the Lit TodoMVC: `<todo-app>` holds the todos and
 * the filter (from location.hash) and renders `<todo-form>`, `<todo-list>` (of `<todo-item>`s)
 * and `<todo-footer>`, each in its own shadow root (Lit's default) with its own styles.
 * Properties go down, events come up: the parts dispatch bubbling, composed events that
 * `<todo-app>` handles.
 *
 * @module
 */
import { css, html, LitElement, nothing } from "lit";
import { classMap } from "lit/directives/class-map.js";
import { repeat } from "lit/directives/repeat.js";

interface Todo {
  id: string;
  title: string;
  completed: boolean;
}

type Filter = "all" | "active" | "completed";

const FILTERS: [Filter, string, string][] = [
  ["all", "#/", "All"],
  ["active", "#/active", "Active"],
  ["completed", "#/completed", "Completed"],
];

function hashFilter(): Filter {
  const name = location.hash.replace(/^#\//, "");
  return name === "active" || name === "completed" ? name : "all";
}

/** An event a part sends up to `<todo-app>`: `add-todo` (a title), `toggle-todo`, `delete-todo` (an id). */
function send(from: HTMLElement, type: string, detail?: string): void {
  from.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
}

const LIST = css`
  ul {
    margin: 0;
    padding: 0;
    list-style: none;
  }
`;

class TodoForm extends LitElement {
  static override styles = css`
    input {
      box-sizing: border-box;
      width: 100%;
      padding: 1rem;
      border: 0;
      font: inherit;
    }
  `;

  #onKeyDown(event: KeyboardEvent): void {
    const input = event.target as HTMLInputElement;
    if (event.key !== "Enter") return;
    const title = input.value.trim();
    if (!title) return;
    send(this, "add-todo", title);
    input.value = "";
  }

  protected override render() {
    return html`
      <input class="new-todo" placeholder="What needs to be done?" autofocus
        @keydown=${this.#onKeyDown}>
    `;
  }
}

class TodoItem extends LitElement {
  static override properties = { todo: { attribute: false } };
  declare todo: Todo;
  static override styles = css`
    .view {
      display: flex;
      gap: 0.75rem;
      padding: 0.75rem 1rem;
      border-bottom: 1px solid #eee;
    }
    label {
      flex: 1;
    }
    .completed label {
      color: #949494;
      text-decoration: line-through;
    }
    .destroy {
      border: 0;
      background: none;
      color: #b83f45;
    }
    .destroy::after {
      content: "×";
    }
  `;

  protected override render() {
    return html`
      <li class=${classMap({ completed: this.todo.completed })}>
        <div class="view">
          <input class="toggle" type="checkbox" .checked=${this.todo.completed}
            @change=${() => send(this, "toggle-todo", this.todo.id)}>
          <label>${this.todo.title}</label>
          <button class="destroy" title="Delete"
            @click=${() => send(this, "delete-todo", this.todo.id)}></button>
        </div>
      </li>
    `;
  }
}

class TodoList extends LitElement {
  static override properties = { todos: { attribute: false } };
  declare todos: Todo[];
  static override styles = [
    LIST,
    css`
      ul {
        border-top: 1px solid #eee;
      }
    `,
  ];

  constructor() {
    super();
    this.todos = [];
  }

  protected override render() {
    return html`<ul class="todo-list">
      ${repeat(this.todos, (t) => t.id, (t) => html`<todo-item .todo=${t}></todo-item>`)}
    </ul>`;
  }
}

class TodoFooter extends LitElement {
  static override properties = {
    todos: { attribute: false },
    filter: {},
  };
  declare todos: Todo[];
  declare filter: Filter;
  static override styles = [
    LIST,
    css`
      footer {
        display: flex;
        justify-content: space-between;
        gap: 1rem;
        padding: 0.6rem 1rem;
      }
      .filters {
        display: flex;
        gap: 0.5rem;
      }
      .selected {
        font-weight: bold;
      }
    `,
  ];

  constructor() {
    super();
    this.todos = [];
    this.filter = "all";
  }

  protected override render() {
    const left = this.todos.filter((t) => !t.completed).length;
    return html`<footer class="footer">
      <span class="todo-count"><strong>${left}</strong> ${left === 1 ? "item" : "items"} left</span>
      <ul class="filters">
        ${
      FILTERS.map(([name, href, label]) =>
        html`<li><a href=${href} class=${
          classMap({ selected: this.filter === name })
        }>${label}</a></li>`
      )
    }
      </ul>
      ${
      this.todos.some((t) => t.completed)
        ? html`<button class="clear-completed" @click=${() =>
          send(this, "clear-completed")}>Clear completed</button>`
        : nothing
    }
    </footer>`;
  }
}

class TodoApp extends LitElement {
  static override properties = { todos: { state: true }, filter: { state: true } };
  declare todos: Todo[];
  declare filter: Filter;
  static override styles = css`
    section {
      background: #fff;
      margin: 2rem auto;
      max-width: 34rem;
      box-shadow: 0 2px 6px #0003;
    }
    h1 {
      margin: 0;
      padding: 1rem;
      font-weight: 200;
      color: #b83f45;
      text-align: center;
    }
  `;
  #onHashChange = () => this.filter = hashFilter();

  constructor() {
    super();
    this.todos = [];
    this.filter = hashFilter();
    this.addEventListener("add-todo", (e) => {
      const title = (e as CustomEvent<string>).detail;
      this.todos = [...this.todos, { id: crypto.randomUUID(), title, completed: false }];
    });
    this.addEventListener("toggle-todo", (e) => {
      const id = (e as CustomEvent<string>).detail;
      this.todos = this.todos.map((t) => t.id === id ? { ...t, completed: !t.completed } : t);
    });
    this.addEventListener("delete-todo", (e) => {
      const id = (e as CustomEvent<string>).detail;
      this.todos = this.todos.filter((t) => t.id !== id);
    });
    this.addEventListener("clear-completed", () => {
      this.todos = this.todos.filter((t) => !t.completed);
    });
  }

  override connectedCallback(): void {
    super.connectedCallback();
    addEventListener("hashchange", this.#onHashChange);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    removeEventListener("hashchange", this.#onHashChange);
  }

  protected override render() {
    const shown = this.todos.filter((t) =>
      this.filter === "all" || (this.filter === "completed") === t.completed
    );
    return html`<section class="todoapp">
      <header class="header">
        <h1>todos</h1>
        <todo-form></todo-form>
      </header>
      ${
      this.todos.length
        ? html`
          <todo-list .todos=${shown}></todo-list>
          <todo-footer .todos=${this.todos} .filter=${this.filter}></todo-footer>
        `
        : nothing
    }
    </section>`;
  }
}

customElements.define("todo-form", TodoForm);
customElements.define("todo-item", TodoItem);
customElements.define("todo-list", TodoList);
customElements.define("todo-footer", TodoFooter);
customElements.define("todo-app", TodoApp);
