// Entry point of the web console: mounts the Svelte app on #app.
import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';

mount(App, { target: document.getElementById('app')! });
