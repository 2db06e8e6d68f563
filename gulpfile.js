// Copies icons and codex files (*.node.json) next to the compiled code, where n8n looks for them.
const { src, dest } = require('gulp');

function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(dest('dist'));
}

exports['build:icons'] = copyIcons;
