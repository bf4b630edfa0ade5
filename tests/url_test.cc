// placeholder: being written by the URL work
